/**
 * One run at a time on a runtime. Two runs on one runtime share what neither can own alone: the
 * injectors' settings are keyed by check, so two IDEM-01s write one delay and read each other's pods in
 * the wrappers' logs; their NRI plugins carry the same names and indexes; and containerd delivers NRI
 * events one at a time, so a hook one run holds stalls the other's pods and moves the deadlines its trials
 * time. Neither run's verdicts would hold. Each run's folder names the runtime it tests and when it
 * claimed it; of two that claim one runtime, the later stops before it makes a pod. A doctor's folder names
 * its runtime too, but as a doctor's: its proof pods are made to run beside a run.
 */
import { EnvironmentError } from '../core/errors.js';
import { sameRuntime } from '../core/socket-identity.js';
import {
  claimRunLogs,
  liveFoldersOfOtherProcesses,
  POD_LOG_ROOT,
  type RunFolder,
  removeRunLogs,
  runFileName,
} from './pod-logs.js';
import { currentOwner, type ProcessView } from './run-owner.js';

/**
 * Makes the run's folder with its claim on the runtime at `endpoint`, or, when another live run claimed
 * that runtime first, removes it again and throws the EnvironmentError that says which run and what to do.
 * Both write before either looks, so of two runs that start together, one always sees the other.
 */
export function claimRuntime(runId: string, endpoint: string, root = POD_LOG_ROOT, view?: ProcessView): void {
  const claimedAt = Date.now();
  claimRunLogs(runId, currentOwner(view), { endpoint, claimedAt });
  const first = earlierClaim({ name: runFileName(runId), claimedAt }, endpoint, root, view);
  if (first === undefined) return;
  removeRunLogs(runId);
  throw new EnvironmentError(
    `another cri-conform run (${whose(first)}) has been testing ${endpoint} since ${new Date(first.claimedAt).toISOString()}: two runs on one runtime share its injector settings, NRI plugin names and hook delivery, so neither's verdicts would hold; wait for it to end, or give this run a private copy of the runtime with --isolated`,
  );
}

type Claimed = RunFolder & { claimedAt: number };

/** The live run of another process that claimed the same runtime before `mine` did, if any. */
function earlierClaim(
  mine: { name: string; claimedAt: number },
  endpoint: string,
  root: string,
  view: ProcessView | undefined,
): Claimed | undefined {
  const before = (c: Claimed) =>
    c.claimedAt < mine.claimedAt || (c.claimedAt === mine.claimedAt && c.name < mine.name);
  return liveFoldersOfOtherProcesses(root, view)
    .flatMap((f): Claimed[] =>
      f.runtime && f.runtime.by !== 'doctor' && sameRuntime({ endpoint: f.runtime.endpoint }, endpoint)
        ? [{ ...f, claimedAt: f.runtime.claimedAt }]
        : [],
    )
    .sort((a, b) => a.claimedAt - b.claimedAt)
    .find(before);
}

function whose({ owner, name }: RunFolder): string {
  return owner === undefined ? `run folder ${name}` : `pid ${owner.pid}, run folder ${name}`;
}
