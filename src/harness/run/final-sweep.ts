/**
 * The end of a run: whatever of it is still labelled is removed, runtime records the CRI no longer lists are
 * reported, and processes the runtime lost are stopped or kept for `cleanup`.
 */
import type { CriClient } from '../../cri/client.js';
import { CriCallError } from '../../cri/errors.js';
import { errorMessage } from '../core/errors.js';
import type { RunConfig } from '../core/settings.js';
import { keepLostIds } from '../host/lost-ids.js';
import { removeRunLogs } from '../host/pod-logs.js';
import { type CleanupReport, removeLabelledUntilGone, SWEEP_AT_ONCE } from '../runtime/cleanup.js';
import { NodeHostProbe } from '../runtime/host-probe.js';
import { endLostProcesses, leaveToCleanup } from '../runtime/lost-processes.js';
import { describeLeftovers, runtimeLeftovers } from '../runtime/runtime-leftovers.js';
import type { RunEnv } from './run-env.js';

const SWEEP_MS = 60_000;

/**
 * Stage 3: remove whatever of the run is still labelled, and report runtime records CRI no longer lists.
 * False when the run's pod-log folder must stay: it holds ids that could not be kept for `cleanup`.
 */
export async function finalSweep(
  config: RunConfig,
  client: CriClient,
  env: Pick<RunEnv, 'runId' | 'host'>,
  listener: { onNote(text: string): void },
): Promise<boolean> {
  const { runId } = env;
  // A private instance goes with the run, and whatever it keeps with it: no cleanup could reach it later.
  const goes = config.privateInstanceLog !== undefined;
  let swept: CleanupReport | undefined;
  try {
    swept = await removeLabelledUntilGone(client, { runId, atOnce: SWEEP_AT_ONCE }, SWEEP_MS);
  } catch (e) {
    // A runtime that crashed or restarted mid-run: the verdicts stand, only the sweep is left to the user.
    if (!(e instanceof CriCallError)) throw e;
    // The command comes first, ahead of a long gRPC message: notes are in no report, only on stderr.
    listener.onNote(
      `final sweep skipped, the runtime does not answer; once it does, run: cri-conform cleanup --run-id ${runId} -r ${config.runtimeEndpoint}\n  (${e.message})`,
    );
  }
  if (swept && swept.pods.length + swept.containers.length > 0) {
    listener.onNote(
      `final sweep removed ${swept.pods.length} pods and ${swept.containers.length} containers (left by ${countedOwners(swept.owners)})`,
    );
  }
  for (const p of swept?.problems ?? []) listener.onNote(`final sweep: ${p}`);
  for (const s of swept?.spared ?? [])
    listener.onNote(
      `final sweep left alone ${s}: it carries the run label but not every mark of the run's own`,
    );
  if (swept) {
    const leftovers = await runtimeLeftovers(config.runtimeEndpoint, runId).catch((e: unknown) => {
      listener.onNote(
        `final sweep: ${errorMessage(e)}; \`cri-conform cleanup --native\` tells and removes it later`,
      );
      return [];
    });
    if (leftovers.length > 0) listener.onNote(describeLeftovers(config.runtimeEndpoint, leftovers, { goes }));
  }
  const note = (text: string) => listener.onNote(text);
  const run = { runId, endpoint: config.runtimeEndpoint };
  let kept = true;
  if (env.host instanceof NodeHostProbe) {
    const removed = [...(swept?.pods ?? []), ...(swept?.containers ?? [])];
    if (swept) kept = await endLostProcesses(client, env.host, run, "this run's", note, removed);
    // A sweep the runtime did not answer leaves every id to `cleanup`.
    else kept = leaveToCleanup(run, env.host.ownIds.all(), "this run's", note);
    // Its removal stops every process of the private instance; ids kept for its socket would name no runtime.
    if (goes) keepLostIds(runId, [], config.runtimeEndpoint);
  }
  // Ids that could not be kept stay in the folder, which cleanup reads once this process has ended.
  if (!kept) return false;
  // After the sweep, whatever it left or could not reach: a container still running writes on into unlinked
  // files, and the directory is the run's alone. Last, since it holds the ids a killed sweep leaves to
  // `cleanup`.
  const logs = removeRunLogs(runId);
  if (logs) note(`final sweep: ${logs}`);
  return true;
}

/** "TEAR-14 x2, IDEM-13": whose objects a sweep found, most first. */
function countedOwners(owners: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const o of owners) counts.set(o, (counts.get(o) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([id, n]) => (n > 1 ? `${id} x${n}` : id))
    .join(', ');
}
