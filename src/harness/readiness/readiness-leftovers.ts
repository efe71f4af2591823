/**
 * What ended runs of the tool left on this runtime for `cleanup`: pods with every mark of a run whose
 * process no longer runs, processes the runtime lost (of ids a final sweep could not stop, lost-ids.ts, or
 * that a killed run recorded as its own and no sweep looked at), and what those runs left of their pods on
 * the host that only cleanup removes (mounts, shim bundles and runc state, stale container scopes). Before a run, an operator learns that the node still holds the tool's debris, and the
 * command that removes it. Never fatal: a run tells its own objects from them by its run label, and its
 * verdicts do not read them.
 */
import type { CriClient } from '../../cri/client.js';
import { errorMessage } from '../core/errors.js';
import { isOurPod, RUN_LABEL } from '../core/labels.js';
import { idsFileIsOf } from '../core/own-ids.js';
import { SYSTEMD_PARENT } from '../host/cgroup-parent.js';
import { keptLostIds } from '../host/lost-ids.js';
import { ON_NODE } from '../host/node-view.js';
import {
  deadRunFolders,
  deadRunsOwnIds,
  liveFoldersOfOtherProcesses,
  otherLiveRuns,
  runFileName,
} from '../host/pod-logs.js';
import { belongsTo, idsOwnedBy, livingProcessesOf } from '../host/proc.js';
import { staleSliceScopes } from '../host/stale-slice-scopes.js';
import { WEDGE_RISK_FIX, wedgeRisksOfDeadRuns } from '../host/wedge-risk.js';
import { runtimeMountsOf } from '../runtime/lost-mounts.js';
import { learnStateRoots, type RuntimeStateRoots, runtimeStateOf } from '../runtime/lost-runtime-state.js';
import { type RuntimeLeftover, runtimeLeftovers } from '../runtime/runtime-leftovers.js';
import type { Finding } from './readiness-types.js';

/** The records containerd keeps of the tool's containers that the CRI does not list (runtime-leftovers.ts). */
type RecordsOf = (endpoint: string, listed: ReadonlySet<string>) => Promise<readonly RuntimeLeftover[]>;

export async function leftoversFinding(
  client: CriClient,
  endpoint: string,
  recordsOf: RecordsOf = (at, listed) => runtimeLeftovers(at, undefined, listed),
): Promise<Finding> {
  const what = 'leftovers of ended cri-conform runs';
  let pods: { id: string; labels: Record<string, string>; metadata: { name: string; namespace: string } }[];
  let listed: Set<string>;
  try {
    pods = (await client.call('ListPodSandbox', { filter: null })).items;
    const { containers } = await client.call('ListContainers', { filter: null });
    listed = new Set([...pods.map((p) => p.id), ...containers.map((c) => c.id)]);
  } catch (e) {
    return { severity: 'warn', what, fix: `the runtime's pods could not be listed: ${errorMessage(e)}` };
  }
  // A run folder without an owner file counts as running, as cleanup counts it.
  const live = new Set(otherLiveRuns(''));
  const ended = pods.filter((p) => isOurPod(p) && !live.has(runFileName(p.labels[RUN_LABEL] ?? '')));
  // The ids final sweeps kept, and those of runs killed before theirs: what the CRI lists is a pod above.
  const files = [...keptLostIds().values(), ...deadRunsOwnIds().values()].filter((f) =>
    idsFileIsOf(f, endpoint),
  );
  const unlisted = [...new Set(files.flatMap((f) => f.ids))].filter((id) => !listed.has(id));
  const lost = unlisted.length === 0 ? [] : livingProcessesOf(unlisted, belongsTo);
  // A lost process's shim still keeps its bundle: the process is counted, and cleanup takes both.
  const running = new Set(idsOwnedBy(unlisted, lost));
  const idle = unlisted.filter((id) => !running.has(id));
  const roots = idle.length > 0 && process.getuid?.() === 0 ? await learnStateRoots(client) : undefined;
  const host = hostLeftovers(unlisted, liveFoldersOfOtherProcesses().length > 0, { idle, roots });
  const wedged = wedgeRisksOfDeadRuns(endpoint);
  // A run still running has records of builds under way that the CRI does not list yet.
  const records = (await recordsOf(endpoint, listed).catch(() => [])).filter(
    (r) => !live.has(runFileName(r.runId)),
  );
  const runs = new Set(ended.map((p) => p.labels[RUN_LABEL]));
  const others = ended.length + lost.length + host.length + wedged.length + records.length;
  // A run killed with nothing of it left on the runtime (an --isolated run, whose copy went) leaves only its
  // folder; beside anything else, the cleanup that removes that takes the folder too.
  const folders = others === 0 ? deadRunFolders() : [];
  if (others + folders.length === 0) return { severity: 'ok', what: `no ${what}` };
  const parts = [
    ...(ended.length > 0
      ? [
          `${count(ended.length, 'pod')} of ${count(runs.size, 'run')} no longer running (${[...runs].join(', ')})`,
        ]
      : []),
    ...(lost.length > 0
      ? [
          `${count(lost.length, 'process', 'processes')} of their sandboxes or containers that the CRI no longer lists, still running`,
        ]
      : []),
    ...(records.length > 0
      ? [
          `${count(records.length, 'container')} the runtime still records that the CRI no longer lists (${records.map((r) => r.id.slice(0, 13)).join(', ')})`,
        ]
      : []),
    ...host,
    ...(folders.length > 0
      ? [
          `the pod-log ${folders.length === 1 ? 'folder' : 'folders'} of ${count(folders.length, 'run')} no longer running (${folders.map((f) => f.dir).join(', ')})`,
        ]
      : []),
    ...wedged,
  ];
  // Only --native removes what the CRI no longer lists, and the processes and mounts of those ids with it.
  const native = records.length > 0 ? ' --native' : '';
  const cleanup = `run \`cri-conform cleanup${native} -r ${endpoint}\` before the node takes workloads`;
  return {
    severity: 'warn',
    what: `${what}: ${parts.join('; ')}`,
    fix: wedged.length > 0 ? `${WEDGE_RISK_FIX}; then ${cleanup}` : cleanup,
  };
}

/**
 * What ended runs left on the node's host beside the runtime's objects: mounts of their sandboxes or
 * containers (of the ids they recorded), the shim bundles and runc state of those no process names
 * (lost-runtime-state.ts), and container scopes below the tool's slice that systemd no longer
 * has, while no other run is alive; as root on the node only (systemctl would reach no systemd or the wrong
 * one from a pod).
 */
function hostLeftovers(
  ids: readonly string[],
  othersAlive: boolean,
  state: { idle: readonly string[]; roots: RuntimeStateRoots | undefined },
): string[] {
  if (process.getuid?.() !== 0) return [];
  const mounts = ids.length === 0 ? [] : runtimeMountsOf(ON_NODE.mountinfo(), ids);
  const dirs = state.roots ? runtimeStateOf(state.idle, state.roots).found : [];
  // A live run's exited container has a scope systemd dropped too, until the run removes it: as cleanup,
  // doctor judges the slice only while no other run is alive.
  const scopes = othersAlive ? [] : staleSliceScopes(ON_NODE).flatMap((scope) => scope.dirs);
  return [
    ...(mounts.length > 0
      ? [
          `${count(mounts.length, 'mount')} of their sandboxes or containers (${mounts.map((m) => m.mountPoint).join(', ')})`,
        ]
      : []),
    ...(dirs.length > 0
      ? [
          `${count(dirs.length, 'shim bundle or runc state directory', 'shim bundles or runc state directories')} of their containers (${dirs.map((d) => d.dir).join(', ')})`,
        ]
      : []),
    ...(scopes.length > 0
      ? [
          `${count(scopes.length, 'empty container scope cgroup')} below ${SYSTEMD_PARENT} that systemd no longer has`,
        ]
      : []),
  ];
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
