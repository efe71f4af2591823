/**
 * `cri-conform cleanup`: removes what crashed runs left behind, found by all of a run's marks (the run
 * label, the pod namespace `cri-conform`, the `cc-` name prefix), and nothing else.
 */
import type { Command } from 'commander';
import type { CriClient } from '../cri/client.js';
import { errorMessage } from '../harness/core/errors.js';
import { configFromFlags } from './command-config.js';
import { deadInstanceDirs, deadInstancesLines, removePrivateInstances } from './dead-instances.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';
import { addEndpointOptions } from './options.js';
import type { RunFlags } from './resolve-config.js';
import { stoppedBySignal } from './signals.js';
import { pruneEmptyStateDirs } from './state-dirs.js';

const HELP = `
Only objects with all three marks of a run are touched: the label cri-conform.io/run, the pod namespace
cri-conform and a name starting cc- (a container: its own label, in such a pod). A pod that carries the
label but not the rest is someone else's: cleanup names it and leaves it alone. So are the pods of a run
still running (its process is alive): it removes its own as it ends, and cleanup names the run. It exits 1 when it leaves a pod,
container, runtime record, private instance or process of the tool's (each named on stderr).

Examples:
  $ cri-conform cleanup
  $ cri-conform cleanup --native
  $ cri-conform cleanup --isolated -r unix:///run/containerd/containerd.sock   # and dead runs' private instances
  $ cri-conform cleanup --run-id 202611221530-3fa2c1 -r unix:///run/containerd/containerd.sock`;

export function addCleanup(program: Command, io: Io, setExit: (code: number) => void): void {
  const cmd = program
    .command('cleanup')
    .description(
      "stop and remove every pod and container of cri-conform runs no longer running (of one run with --run-id; a run still running removes its own), the delay injectors' per-check settings a killed run left, the processes of a killed run's own pods that the runtime lost track of (and those a run's final sweep could not stop), the pod logs of runs no longer running and the empty cgroup parent (/cri-conform, or the slice cri_conform.slice) once no run is alive",
    );
  addEndpointOptions(cmd)
    .option('--run-id <id>', 'only the objects of this run (the id is in every report)')
    .option(
      '--isolated',
      'first remove the private instances (run --isolated) of this endpoint that killed runs left: their daemon, shims, mounts, netns, bridge, cgroups and directory',
    )
    .option(
      '--native',
      "also remove containerd records the CRI no longer lists (containerd's own API, namespace k8s.io) and unmount those sandboxes' /dev/shm",
    )
    .addHelpText('after', HELP)
    .action(async (flags: RunFlags & { config?: string; runId?: string; native?: boolean }) => {
      const { runId, native, isolated, ...rest } = flags;
      if (runId !== undefined) await refuseRunningRun(runId);
      const config = configFromFlags(rest, io);
      const endpoint = config.runtimeEndpoint;
      const again = `run \`${cleanupCommand(endpoint, { runId, native, isolated: isolated === true })}\` to finish it`;
      const interrupted = () => stoppedBySignal(io.signal, io.err, again);
      const isolatedLeft = isolated ? await removePrivateInstances(endpoint, io) : 0;
      // Only --isolated removes them (that stops a daemon of the tool's); plain cleanup names them.
      const deadInstances = isolated || runId ? [] : deadInstanceDirs(endpoint);
      for (const line of deadInstancesLines(endpoint, deadInstances)) io.err(line);
      if (interrupted()) return setExit(2);
      const [{ removeLabelledUntilGone, SWEEP_AT_ONCE }, { connectRuntime }] = await Promise.all([
        import('../harness/runtime/cleanup.js'),
        import('../harness/runtime/environment.js'),
      ]);
      const client = await connectRuntime(config);
      // First: against a runtime a killed run left deadlocked, every removal below waits out its deadline.
      await sayWedgeRisks(config.runtimeEndpoint, io);
      try {
        const { runStillRunning } = await import('../harness/host/pod-logs.js');
        const scope = {
          atOnce: SWEEP_AT_ONCE,
          ...(runId ? { runId } : { stillRunning: (run: string) => runStillRunning(run) }),
        };
        const report = await removeLabelledUntilGone(client, scope, 120_000, undefined, io.signal);
        io.out(`removed ${report.containers.length} containers and ${report.pods.length} pods\n`);
        if (report.running.length > 0)
          io.out(
            `left alone the pods of ${report.running.length === 1 ? 'a run' : `${report.running.length} runs`} still running (${report.running.join(', ')}): each removes its own as it ends\n`,
          );
        for (const id of report.pods) io.out(`  pod ${id}\n`);
        for (const p of report.problems) io.err(`cri-conform: could not remove ${p}\n`);
        for (const s of report.spared)
          io.out(
            `left alone ${s}: it carries the label cri-conform.io/run but not every mark of cri-conform's own\n`,
          );
        // Before the runs' folders go: the ids killed runs recorded there name what the runtime lost of them.
        // Not skipped on a signal: it keeps the ids of what was just removed, which the next cleanup needs.
        const removed = [...report.pods, ...report.containers];
        const lost = await stopLostProcessesOfEndedRuns(client, endpoint, { runId, removed }, io);
        if (interrupted()) return setExit(2);
        // A folder whose ids could not be kept elsewhere stays: it is where the next cleanup finds them.
        const unkept = new Set(lost.unkept);
        if (report.problems.length === 0)
          await removePodLogs([...report.runs, ...(runId ? [runId] : [])], unkept, io);
        // A run killed before or after its objects existed left none to find it by: its process tells.
        if (!runId) await removeDeadRunLogsOf(unkept, io);
        // Claims carry no run id, so only a cleanup of every run may take them.
        const claimsLeft = runId
          ? 0
          : await releaseInjectorClaims(endpoint, [config.slowRuntimeDir, config.slowCniDir], io);
        if (interrupted()) return setExit(2);
        // Before the cgroup parent and the state folders: a task it kills may hold a pod's cgroup below the
        // parent, and the ids it lets go of may leave the lost-ids folder empty.
        const left = await (native ? removeNative : reportNative)(client, endpoint, runId, io).catch(
          async (e: unknown) => {
            const { RecordsUnreadError } = await import('../harness/runtime/containerd-records.js');
            if (!(e instanceof RecordsUnreadError)) throw e;
            io.err(`cri-conform: ${e.message}; run cleanup again once containerd answers\n`);
            return 1;
          },
        );
        const cgroupsLeft = runId ? 0 : await removeIdleCgroupParent(io);
        if (!runId) pruneEmptyStateDirs();
        const leftInAll =
          report.problems.length +
          left +
          isolatedLeft +
          deadInstances.length +
          lost.left +
          claimsLeft +
          cgroupsLeft;
        setExit(leftInAll === 0 ? 0 : 1);
      } finally {
        client.close();
      }
    });
}

/**
 * A run still running removes its own objects as it ends, and taking them mid-check would fail its checks
 * for the tool's own doing: `cleanup --run-id` of one is refused.
 */
async function refuseRunningRun(runId: string): Promise<void> {
  checkRunId(runId);
  const { runStillRunning } = await import('../harness/host/pod-logs.js');
  if (runStillRunning(runId))
    throw new UsageError(
      `run ${runId} is still running, and removes its own pods as it ends: stop it (Ctrl-C or SIGTERM), or run cleanup once it has ended or was killed`,
    );
}

async function sayWedgeRisks(endpoint: string, io: Io): Promise<void> {
  const { WEDGE_RISK_FIX, wedgeRisksOfDeadRuns } = await import('../harness/host/wedge-risk.js');
  for (const risk of wedgeRisksOfDeadRuns(endpoint)) io.err(`cri-conform: ${risk}: ${WEDGE_RISK_FIX}\n`);
}

/** Removes the pod log directories of the runs whose objects are gone now, but those of `keep` (file names). */
async function removePodLogs(runIds: readonly string[], keep: ReadonlySet<string>, io: Io): Promise<void> {
  const { removeRunLogs, runFileName } = await import('../harness/host/pod-logs.js');
  for (const id of new Set(runIds.filter((r) => r !== '' && !keep.has(runFileName(r))))) {
    const problem = removeRunLogs(id);
    if (problem) io.err(`cri-conform: could not remove ${problem}\n`);
  }
}

/**
 * Stops the processes of ended runs that the runtime lost track of: a process that names an id a killed
 * run recorded as its own (beside its pod logs), or one a final sweep could not stop and kept for cleanup,
 * which neither the CRI nor the runtime's records know any more. Only those ids: nothing else tells a lost
 * process of the tool's. The ids of processes still running are kept for the next cleanup; returns how
 * many processes it left running, or could not keep the ids of.
 */
async function stopLostProcessesOfEndedRuns(
  client: CriClient,
  endpoint: string,
  scope: { runId: string | undefined; removed: readonly string[] },
  io: Io,
): Promise<{ left: number; unkept: string[] }> {
  const [{ lostProcesses, stopKeptLostProcesses }, { LOST_IDS_ROOT }] = await Promise.all([
    import('../harness/runtime/lost-processes.js'),
    import('../harness/host/lost-ids.js'),
  ]);
  const { runId, removed } = scope;
  const { runs, strays, mounts, state, problems, unkept } = await stopKeptLostProcesses(client, endpoint, {
    ...(runId ? { runId } : {}),
    removed,
  });
  // Keeping another endpoint's ids can fail too, with none of this endpoint's to look for.
  for (const p of problems)
    io.err(`cri-conform: could not keep ${p}; where they came from a run's pod-log folder, it stays\n`);
  const where =
    unkept.length > 0 ? 'stays for the next cleanup' : `stays in ${LOST_IDS_ROOT} for the next cleanup`;
  if (runs === 0) return { left: problems.length, unkept };
  if (!strays) {
    io.err(
      `cri-conform: could not list the runtime's pods to look for processes it lost of ended runs; their ids ${where}\n`,
    );
    return { left: problems.length + 1, unkept };
  }
  const what = (n: number) => lostProcesses(n, "ended runs'");
  if (strays.ended.length > 0) {
    io.out(`stopped ${what(strays.ended.length)} that the runtime had lost track of\n`);
    for (const p of strays.ended) io.out(`  ${p}\n`);
  }
  for (const p of strays.left) io.err(`cri-conform: left running ${p}; its id ${where}\n`);
  for (const m of mounts?.unmounted ?? []) io.out(`unmounted ${m}: the runtime had lost its id\n`);
  for (const m of mounts?.problems ?? []) io.err(`cri-conform: still mounted ${m}; its id ${where}\n`);
  for (const d of state?.removed ?? []) io.out(`removed ${d}: the runtime had lost its id\n`);
  for (const d of state?.problems ?? []) io.err(`cri-conform: left ${d}; its id ${where}\n`);
  const hostLeft = (mounts?.problems.length ?? 0) + (state?.problems.length ?? 0);
  return { left: strays.left.length + hostLeft + problems.length, unkept };
}

/**
 * Removes the pod log directories of runs that no longer run, whatever of them the runtime still has, but
 * those of `keep` (file names).
 */
async function removeDeadRunLogsOf(keep: ReadonlySet<string>, io: Io): Promise<void> {
  const { removeDeadRunLogs } = await import('../harness/host/pod-logs.js');
  const { removed, unowned, problems } = removeDeadRunLogs(undefined, undefined, keep);
  const runs = removed.length === 1 ? '1 run' : `${removed.length} runs`;
  if (removed.length > 0) io.out(`removed the pod logs of ${runs} no longer running\n`);
  for (const dir of removed) io.out(`  ${dir}\n`);
  for (const dir of unowned)
    io.out(`kept ${dir}: a run is making it (new and empty, its owner file not yet written)\n`);
  for (const p of problems) io.err(`cri-conform: could not remove ${p}\n`);
}

/**
 * The empty /cri-conform cgroup a killed run left, with the empty pod cgroups a runtime left below it
 * (cgroup-parent-lease.ts, stale-pod-cgroups.ts), and the tool's slice with its stale container scopes
 * (stale-slice-scopes.ts); as root on the node only. Returns 1 when the slice stays though no run is alive.
 */
async function removeIdleCgroupParent(io: Io): Promise<number> {
  if (process.getuid?.() !== 0) return 0;
  const [{ removeIdleDefaultParent }, { ON_NODE }, { otherLiveRuns }] = await Promise.all([
    import('../harness/host/cgroup-parent-lease.js'),
    import('../harness/host/node-view.js'),
    import('../harness/host/pod-logs.js'),
  ]);
  const { podCgroups, cgroupfs, systemd } = removeIdleDefaultParent(ON_NODE, otherLiveRuns(''));
  const pods = new Set(podCgroups.map((dir) => dir.slice(dir.lastIndexOf('/') + 1)));
  if (pods.size > 0)
    io.out(
      `removed the empty cgroups of ${pods.size === 1 ? '1 pod' : `${pods.size} pods`} the runtime left below /cri-conform (${podCgroups.length} directories)\n`,
    );
  for (const pod of pods) io.out(`  ${pod}\n`);
  if (cgroupfs.removed.length > 0)
    io.out(`removed the empty cgroup parent /cri-conform from ${cgroupfs.removed.length} hierarchies\n`);
  if (systemd.removed.length > 0)
    io.out(
      `removed ${systemd.removed.length} cgroup directories of cri_conform.slice that systemd leaves (stale container scopes below it, and its own where systemd does not manage the hierarchy)\n`,
    );
  for (const dir of systemd.removed) io.out(`  ${dir}\n`);
  if (systemd.stoppedUnit) io.out(`stopped the empty systemd slice ${systemd.stoppedUnit}\n`);
  const kept = systemd.keptSlice;
  if (!kept) return 0;
  io.err(`cri-conform: the systemd slice ${kept.unit} stays, kept by: ${kept.dirs.join(' ')}\n`);
  return 1;
}

/**
 * Removes the per-check delay settings in the injectors' control dirs, which only a killed run leaves; with
 * a run alive, those are its checks' settings in use, and stay.
 */
/** Returns how many control dirs kept claims it could not remove. */
async function releaseInjectorClaims(
  endpoint: string,
  dirs: readonly (string | undefined)[],
  io: Io,
): Promise<number> {
  const [{ releaseAllClaims }, { runsOfOtherProcessesOn }] = await Promise.all([
    import('../harness/injectors/injectors.js'),
    import('../harness/host/pod-logs.js'),
  ]);
  const alive = runsOfOtherProcessesOn(endpoint);
  if (alive.length > 0 && dirs.some(Boolean)) {
    io.out(
      `left the injector claims alone: cri-conform runs on this runtime are alive (${alive.join(', ')})\n`,
    );
    return 0;
  }
  let left = 0;
  for (const dir of dirs) {
    if (!dir) continue;
    try {
      const keys = await releaseAllClaims(dir);
      if (keys.length > 0) io.out(`released ${keys.length} injector claims in ${dir}: ${keys.join(' ')}\n`);
    } catch (e) {
      left += 1;
      io.err(
        `cri-conform: could not release the injector claims in ${dir}: ${errorMessage(e)}; remove its pods/ folder as the user that owns it\n`,
      );
    }
  }
  return left;
}

/**
 * A run id as runs make them (202612070504-3a3d94) or a label value: an empty one would mean every run,
 * which a cleanup of one run must never become.
 */
function checkRunId(runId: string): void {
  if (!/^[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$/.test(runId))
    throw new UsageError(
      `--run-id "${runId}" is not a run id; copy it from a report's runId (e.g. 202612070504-3a3d94), or leave --run-id out to clean up every run`,
    );
}

/** Ids the CRI still lists: those are the CRI's to remove, never the native cleanup's. */
async function criListed(client: CriClient): Promise<Set<string>> {
  const { items } = await client.call('ListPodSandbox', { filter: null });
  const { containers } = await client.call('ListContainers', { filter: null });
  return new Set([...items.map((p) => p.id), ...containers.map((c) => c.id)]);
}

/** Tells what the runtime still keeps; returns how many. */
async function reportNative(client: CriClient, endpoint: string, runId: string | undefined, io: Io) {
  const { describeLeftovers, runtimeLeftovers } = await import('../harness/runtime/runtime-leftovers.js');
  const leftovers = await ofEndedRuns(await runtimeLeftovers(endpoint, runId, await criListed(client)));
  if (leftovers.length > 0) io.err(`cri-conform: ${describeLeftovers(endpoint, leftovers)}\n`);
  return leftovers.length;
}

/**
 * A run still running has records the CRI does not list yet (a sandbox being built): they are neither
 * leftovers nor a leak.
 */
async function ofEndedRuns<T extends { runId: string }>(leftovers: readonly T[]): Promise<T[]> {
  const { otherLiveRuns, runFileName } = await import('../harness/host/pod-logs.js');
  // One look at the run folders for all the records, as doctor takes it (readiness-leftovers.ts).
  const live = new Set(otherLiveRuns(''));
  return leftovers.filter((l) => !live.has(runFileName(l.runId)));
}

/** Removes what the runtime still keeps through its own API; returns how many could not be removed. */
async function removeNative(client: CriClient, endpoint: string, runId: string | undefined, io: Io) {
  const { removeRuntimeLeftovers, runtimeLeftovers } = await import(
    '../harness/runtime/runtime-leftovers.js'
  );
  const leftovers = await ofEndedRuns(await runtimeLeftovers(endpoint, runId, await criListed(client)));
  const { removed, problems } = await removeRuntimeLeftovers(endpoint, leftovers, { withinMs: 10_000 });
  io.out(`removed ${removed.length} runtime records the CRI no longer listed\n`);
  for (const r of removed)
    io.out(`  container ${r.id}${r.taskPid === undefined ? '' : ` (task pid ${r.taskPid} killed)`}\n`);
  for (const p of problems) io.err(`cri-conform: could not remove runtime record ${p}\n`);
  // containerd's CRI plugin mounts a sandbox's /dev/shm itself, and its own API cannot remove that mount.
  const { unmountSandboxShm } = await import('../harness/host/sandbox-shm.js');
  const shm = await unmountSandboxShm(removed.map((r) => r.id));
  for (const m of shm.unmounted) io.out(`  unmounted ${m}\n`);
  for (const m of shm.problems) io.err(`cri-conform: still mounted (umount it): ${m}\n`);
  // Their processes are killed and their records gone: no later cleanup has anything to look for by them.
  const { forgetLostIds } = await import('../harness/host/lost-ids.js');
  const unforgotten = forgetLostIds(
    removed.map((r) => r.id),
    endpoint,
  );
  for (const p of unforgotten) io.err(`cri-conform: could not let go of ${p}\n`);
  return problems.length + shm.problems.length;
}

/** This cleanup's command line, to run again. */
function cleanupCommand(
  endpoint: string,
  flags: { runId: string | undefined; native: boolean | undefined; isolated: boolean },
): string {
  const native = flags.native ? ' --native' : '';
  const isolated = flags.isolated ? ' --isolated' : '';
  const run = flags.runId ? ` --run-id ${flags.runId}` : '';
  return `cri-conform cleanup${isolated}${native} -r ${endpoint}${run}`;
}
