/**
 * Stopping the processes of the run's own ids that the runtime lost track of (NodeHostProbe.endStrays),
 * once the CRI's lists say which ids it still serves: a run's final sweep and doctor's do it for their own
 * ids, and `cleanup` for the ids that runs killed before their sweep recorded, and for those a sweep could
 * not finish with (lost-ids.ts).
 */
import type { CriClient } from '../../cri/client.js';
import { idsFileIsOf } from '../core/own-ids.js';
import { keepLostIds, keptLostIds, lostIdsFile } from '../host/lost-ids.js';
import { deadRunsOwnIds, runFileName, runLogDirectory } from '../host/pod-logs.js';
import { belongsTo, idsOwnedBy, livingProcessesOf } from '../host/proc.js';
import { NodeHostProbe, type Strays } from './host-probe.js';
import { type LostMounts, unmountLostMounts } from './lost-mounts.js';
import { type LostRuntimeState, learnStateRoots, removeLostRuntimeState } from './lost-runtime-state.js';

/** Undefined when the CRI could not list: an id it still serves cannot then be told from a lost one. */
export async function stopLostProcesses(client: CriClient, host: NodeHostProbe): Promise<Strays | undefined> {
  const listed = await criListedIds(client);
  return listed && host.endStrays(listed);
}

/** The ids of every pod and container the CRI lists; undefined when it could not list. */
async function criListedIds(client: CriClient): Promise<Set<string> | undefined> {
  const [pods, containers] = await Promise.all([
    client.call('ListPodSandbox', { filter: null }),
    client.call('ListContainers', { filter: null }),
  ]).catch(() => [undefined, undefined]);
  if (!pods || !containers) return undefined;
  return new Set([...pods.items.map((p) => p.id), ...containers.containers.map((c) => c.id)]);
}

/** The run whose ids a final sweep keeps for `cleanup`, and the endpoint they are ids of. */
export interface SweptRun {
  runId: string;
  endpoint: string;
}

/**
 * The final sweep's stray stop, said in its words through `note`: the same for a run and for doctor, whose
 * proof pods can lose a shim just the same. `whose` owns the ids: "this run's", "doctor's". The ids whose
 * processes are still to stop (those it left running, or every own id when the CRI could not list what it
 * still serves) are left to `cleanup` (leaveToCleanup).
 */
export async function endLostProcesses(
  client: CriClient,
  host: NodeHostProbe,
  run: SweptRun,
  whose: string,
  note: (text: string) => void,
  /** Objects the sweep has just removed: their processes get the grace to exit first. */
  removed: readonly string[] = [],
): Promise<boolean> {
  await host.untilReapedOf(removed);
  const strays = await stopLostProcesses(client, host);
  if (!strays) return leaveToCleanup(run, host.ownIds.all(), whose, note);
  const what = (n: number) => lostProcesses(n, whose);
  if (strays.ended.length > 0)
    note(
      `final sweep stopped ${what(strays.ended.length)} that the runtime had lost track of (no CRI object, no record of it; a runtime bug, as IDEM-14 reports): ${strays.ended.join('; ')}`,
    );
  if (strays.left.length > 0)
    note(
      `final sweep left running ${what(strays.left.length)} that the CRI no longer lists: ${strays.left.join('; ')}`,
    );
  return leaveToCleanup(run, strays.leftIds, whose, note);
}

/**
 * Keeps the ids whose processes the final sweep could not finish with for `cleanup`, which looks for them
 * again once the run has ended, and says so; with none, whatever was kept for the run goes. False when
 * they could not be kept: the run's pod-log folder, which holds them too, must then stay for `cleanup`.
 */
export function leaveToCleanup(
  run: SweptRun,
  ids: readonly string[],
  whose: string,
  note: (text: string) => void,
): boolean {
  const { runId, endpoint } = run;
  const problem = keepLostIds(runId, ids, endpoint);
  if (problem) {
    note(
      `final sweep: could not keep the ids of ${whose} own objects for cleanup (${problem}); they stay in ${runLogDirectory(runId)}, where \`cri-conform cleanup\` finds them once this process has ended`,
    );
    return false;
  }
  if (ids.length > 0)
    note(
      `final sweep kept ${ids.length === 1 ? '1 id' : `${ids.length} ids`} of ${whose} own sandboxes or containers in ${lostIdsFile(runId)}: \`cri-conform cleanup\` looks for their processes again and stops those the runtime no longer knows`,
    );
  return true;
}

/** What `cleanup` did with the processes of killed runs and the ids final sweeps kept. */
export interface KeptStrays {
  /** Runs whose ids were looked for. */
  runs: number;
  strays: Strays | undefined;
  /** The runtime's mounts of those ids that it lost too (lost-mounts.ts); undefined when the CRI could not list. */
  mounts: LostMounts | undefined;
  /** Their shim bundles and runc state, once unmounted (lost-runtime-state.ts); undefined as `mounts`. */
  state: LostRuntimeState | undefined;
  /** Problems keeping the ids still to stop. */
  problems: string[];
  /** The runs (file names) whose ids could not be kept: their pod-log folders must stay. */
  unkept: string[];
}

/** Under which name `cleanup` keeps the ids of the objects it removed itself, whose runs it does not tell. */
export const REMOVED_BY_CLEANUP = 'removed-by-cleanup';

/**
 * Stops what the runtime lost of runs that ended without finishing their sweep (killed, or a sweep that
 * left processes running), of one run only with `runId`; keeps the ids of processes still running for the
 * next `cleanup`, and lets go of the others. Before the runs' pod-log folders go: they hold the killed
 * runs' ids. Ids of another endpoint's objects are not this runtime's to judge (it lists none of them and
 * keeps no record of them): those still named by a process are kept for a cleanup of their own endpoint.
 */
export async function stopKeptLostProcesses(
  client: CriClient,
  endpoint: string,
  scope: { runId?: string; removed?: readonly string[] } = {},
): Promise<KeptStrays> {
  const { runId, removed = [] } = scope;
  const ours = new Map<string, string[]>();
  const others = new Map<string, { endpoint: string; ids: string[] }>();
  const problems: string[] = [];
  const unkept: string[] = [];
  const keep = (run: string, ids: readonly string[], of: string) => {
    const problem = keepLostIds(run, ids, of);
    if (!problem) return;
    problems.push(problem);
    unkept.push(run);
  };
  // What this cleanup removed itself: the runtime may lose a process of it right then, as a sweep's.
  if (removed.length > 0) ours.set(runFileName(runId ?? REMOVED_BY_CLEANUP), [...removed]);
  // A run killed between keeping ids and removing its folder has both: one file is kept of the two.
  for (const [run, file] of [...deadRunsOwnIds(runId), ...keptLostIds(runId)]) {
    if (idsFileIsOf(file, endpoint)) ours.set(run, [...(ours.get(run) ?? []), ...file.ids]);
    else if (file.endpoint !== undefined)
      others.set(run, { endpoint: file.endpoint, ids: [...(others.get(run)?.ids ?? []), ...file.ids] });
  }
  for (const [run, other] of others)
    keep(run, idsOwnedBy(other.ids, livingProcessesOf(other.ids, belongsTo)), other.endpoint);
  if (ours.size === 0)
    return { runs: 0, strays: undefined, mounts: undefined, state: undefined, problems, unkept };
  const probe = new NodeHostProbe(endpoint);
  for (const ids of ours.values()) probe.ownIds.add(ids);
  await probe.untilReapedOf(removed);
  const strays = await stopLostProcesses(client, probe);
  // Once their shims are gone: a shim unmounts its container's rootfs as it ends, a killed one does not.
  const listed = strays && (await criListedIds(client));
  const mounts = listed && (await unmountLostMounts(listed, probe));
  // Once unmounted: a bundle goes only with nothing mounted below it. The mount points just unmounted
  // still tell where containerd keeps its bundles.
  const roots = mounts && (await learnStateRoots(client, mounts.unmounted));
  const state = listed && roots && (await removeLostRuntimeState(listed, probe, roots));
  const left = new Set([...(strays?.leftIds ?? []), ...(mounts?.leftIds ?? []), ...(state?.leftIds ?? [])]);
  for (const [run, ids] of ours) {
    // Without the CRI's lists nothing was looked at: every id stays for the next cleanup.
    keep(run, strays && mounts && state ? ids.filter((id) => left.has(id)) : ids, endpoint);
  }
  return { runs: ours.size, strays, mounts, state, problems, unkept };
}

/** "2 processes of this run's own sandboxes or containers". */
export function lostProcesses(n: number, whose: string): string {
  return `${n} process${n === 1 ? '' : 'es'} of ${whose} own sandboxes or containers`;
}
