/**
 * A run killed while a check has the runtime where it may stay wedged. TEAR-16 lets a plugin register while
 * a removal waits in a held hook, which deadlocks containerd 2.1 until it restarts; the check restarts it
 * itself, and an interrupted run still does, but a SIGKILL ends the tool before that. The check marks the
 * window in its run's folder, and doctor and cleanup name a killed run's mark: the runtime then needs a
 * restart, which no cleanup of objects gives it.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sameRuntime } from '../core/socket-identity.js';
import { deadRunFolders, POD_LOG_ROOT, runLogDirectory } from './pod-logs.js';
import type { ProcessView } from './run-owner.js';

const WEDGE_RISK_FILE = 'cri-conform-wedge-risk';

/** Marks the run's runtime at risk for `why` until the returned function clears it. Best effort. */
export function markWedgeRisk(runId: string, endpoint: string, why: string): () => void {
  const file = join(runLogDirectory(runId), WEDGE_RISK_FILE);
  try {
    writeFileSync(file, `${endpoint}\n${why}\n`);
  } catch {
    // A run without its folder (a unit test's) has no later doctor to tell.
  }
  return () => rmSync(file, { force: true });
}

/** What killed runs of the runtime at `endpoint` left marked: one line each, naming the run and why. */
export function wedgeRisksOfDeadRuns(endpoint: string, root = POD_LOG_ROOT, view?: ProcessView): string[] {
  const risks: string[] = [];
  for (const { name, dir } of deadRunFolders(root, view)) {
    let text: string;
    try {
      text = readFileSync(join(dir, WEDGE_RISK_FILE), 'utf8');
    } catch {
      continue;
    }
    const [marked = '', why = ''] = text.split('\n');
    if (sameRuntime({ endpoint: marked }, endpoint)) risks.push(`run ${name} was killed while ${why}`);
  }
  return risks;
}

/** What an operator does about a mark: the runtime needs a restart, which no cleanup of objects gives it. */
export const WEDGE_RISK_FIX =
  'if the runtime no longer answers pod calls (doctor: "cannot run a pod"), restart it (systemctl restart containerd, or the --restart-cmd of that run)';
