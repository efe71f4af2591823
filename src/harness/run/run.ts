/**
 * A whole run in three stages: prepare (readiness, the environment every check shares), run the selected
 * checks, and sweep what they left. Exceptions are for environment problems only; check verdicts are data.
 */
import { hostname } from 'node:os';
import type { CriClient } from '../../cri/client.js';
import { type Check, displayName } from '../check/check.js';
import { type CheckResult, describeCrash, type RunOutcome, type RunProperties } from '../check/result.js';
import { type Availability, staticSkipReason } from '../check/selection.js';
import { SharedOutcomes } from '../check/shared-outcomes.js';
import { Sequence } from '../check/timeline.js';
import { newRunId } from '../core/labels.js';
import { checkSettingsOf, type RunConfig } from '../core/settings.js';
import { loadBundledDeviations, loadDeviations } from '../deviations/deviation-file.js';
import {
  applyDeviations,
  type DeviationSets,
  knownDeviationTest,
  staleDeviations,
  unseenRaces,
} from '../deviations/deviations.js';
import type { CgroupParentLease } from '../host/cgroup-parent-lease.js';
import { hostPlatform } from '../host/host-platform.js';
import { startCpuMeter } from '../host/machine-cpu.js';
import { otherLiveRuns, ownIdsRecorder, removeRunLogs } from '../host/pod-logs.js';
import { claimRuntime } from '../host/runtime-claim.js';
import { HookLane } from '../injectors/hook-lane.js';
import { RegistrationGate } from '../injectors/registration-gate.js';
import { besideKubeletMonitor } from '../neighbours/disturbance-monitor.js';
import { assessReadiness, requireReady } from '../readiness/readiness.js';
import { besideDetectedKubelet } from '../readiness/readiness-probes.js';
import type { Readiness } from '../readiness/readiness-types.js';
import type { CreationWatch } from '../runtime/creation-watch.js';
import { connectRuntime } from '../runtime/environment.js';
import { NodeHostProbe } from '../runtime/host-probe.js';
import { endLostProcesses } from '../runtime/lost-processes.js';
import { RuntimeWatch } from '../runtime/runtime-watch.js';
import { executeCheck, identityOf } from './execute-check.js';
import { finalSweep } from './final-sweep.js';
import { RestingChecks } from './resting-checks.js';
import type { RunEnv } from './run-env.js';
import { runScheduled } from './scheduler.js';

export interface RunListener {
  onStart(total: number, props: RunProperties): void;
  onCheckStart(check: Check): void;
  onCheckEnd(result: CheckResult): void;
  onNote(text: string): void;
  /** A race check's trial ended (cleanup included): `done` of its `planned` trials are over. */
  onTrialEnd?(checkId: string, done: number, planned: number): void;
}

export async function runConformance(
  config: RunConfig,
  checks: readonly Check[],
  listener: RunListener,
  signal: AbortSignal,
  toolVersion: string,
  hooks: Pick<RunEnv, 'beforeCall'> = {},
): Promise<RunOutcome> {
  const started = performance.now();
  const cpuMeter = startCpuMeter();
  const deviations: DeviationSets = {
    expected: config.expectedDeviations ? loadDeviations(config.expectedDeviations) : [],
    bundled: loadBundledDeviations(),
  };
  const client = await connectRuntime(config);
  let runId: string | undefined;
  let cgroupLease: CgroupParentLease | undefined;
  let creations: CreationWatch | undefined;
  // The run's pod-log folder holds its own ids: it stays for `cleanup` while they may name a lost process.
  let keepFolder = false;
  let host: RunEnv['host'] | undefined;
  try {
    const prepared = await prepare(config, checks, client, { signal, toolVersion, hooks, listener });
    runId = prepared.env.runId;
    host = prepared.env.host;
    cgroupLease = prepared.cgroupLease;
    creations = prepared.creations;
    prepared.env.knownDeviation = knownDeviationTest(deviations, prepared.runtime);
    prepared.env.onTrialEnd = (id, done, planned) => listener.onTrialEnd?.(id, done, planned);
    listener.onStart(checks.length, prepared.properties);
    const { kubelet } = prepared.properties;
    const { disturbance } = prepared.env;
    if (disturbance)
      listener.onNote(
        `running beside a kubelet (--beside-kubelet), ${kubelet}; another client's doing is seen by ${disturbance.hears}`,
      );
    for (const note of prepared.notes) listener.onNote(note);
    const { results, stop } = await runChecks(config, checks, prepared, deviations, listener, signal).finally(
      () => prepared.env.disturbance?.stop(),
    );
    const crashes = prepared.watch.crashes;
    keepFolder = !(await finalSweep(config, client, prepared.env, listener));
    const stale = staleDeviations(deviations.expected, results, prepared.runtime);
    for (const s of stale) listener.onNote(`warning: stale expected deviation ${s}`);
    for (const s of unseenRaces(deviations.expected, results, prepared.runtime))
      listener.onNote(`expected deviation not seen this run, kept as a race (race: true): ${s}`);
    // Only a runtime on this node does its work on these CPUs; off it they would measure another machine.
    const cpu = prepared.env.host instanceof NodeHostProbe ? cpuMeter.stop() : undefined;
    const hookLane = prepared.env.hookLane?.use();
    return {
      properties: prepared.properties,
      results,
      durationMs: Math.round(performance.now() - started),
      ...(stop ? { interrupted: stop } : {}),
      ...(stale.length > 0 ? { staleDeviations: stale } : {}),
      ...(crashes.length > 0 ? { runtimeCrashes: crashes } : {}),
      ...(cpu ? { cpu } : {}),
      ...(hookLane ? { hookLane } : {}),
    };
  } catch (e) {
    // Thrown before the sweep: the ids learnt so far are all that names what the runtime may have lost.
    keepFolder = host instanceof NodeHostProbe && host.ownIds.all().length > 0;
    throw e;
  } finally {
    await creations?.stop();
    // The sweep removed the run's pod logs; this is for a run that threw before it got there.
    if (runId !== undefined && !keepFolder) removeRunLogs(runId);
    cgroupLease?.release(otherLiveRuns(runId ?? ''));
    client.close();
  }
}

/** What the preparing stage hands to the running stage. */
interface Prepared {
  env: RunEnv;
  properties: RunProperties;
  availability: Availability;
  runtime: { name: string; version: string };
  watch: RuntimeWatch;
  cgroupLease: CgroupParentLease;
  creations: CreationWatch | undefined;
  /** What readiness has the run say before its first check (Readiness.notes). */
  notes: string[];
}

/** Stage 1: the runtime is ready for the selected checks, and the environment they share is built. */
async function prepare(
  config: RunConfig,
  checks: readonly Check[],
  client: CriClient,
  run: {
    signal: AbortSignal;
    toolVersion: string;
    hooks: Pick<RunEnv, 'beforeCall'>;
    listener: Pick<RunListener, 'onNote'>;
  },
): Promise<Prepared> {
  const { signal, toolVersion, hooks } = run;
  const runId = newRunId();
  // Before the proof pods: a run killed among them leaves their ids to `cleanup`, as it does its checks'.
  claimRuntime(runId, config.runtimeEndpoint);
  let readiness: Readiness | undefined;
  try {
    readiness = await assessReadiness(
      client,
      config,
      checks,
      'run',
      ownIdsRecorder(runId, config.runtimeEndpoint),
    );
    requireReady(readiness);
  } catch (e) {
    // The proof's pods are gone, but the runtime may have lost a process of one: as doctor does, the
    // stray stop looks, and the folder goes once nothing is left to find.
    const { host } = readiness ?? {};
    const note = (text: string) => run.listener.onNote(text);
    const own = { runId, endpoint: config.runtimeEndpoint };
    const settled =
      !(host instanceof NodeHostProbe) || (await endLostProcesses(client, host, own, "this run's", note));
    // The proof pods may have made the cgroupfs parent before readiness said no.
    readiness?.cgroupLease.release(otherLiveRuns(runId));
    if (settled) removeRunLogs(runId);
    throw e;
  }
  const { nri, host, availability } = readiness;
  // From here on, a build the runtime abandons before any reply names it is still known as the run's.
  const creations = host instanceof NodeHostProbe ? host.watchCreations(runId) : undefined;
  const runtime = { name: client.version.runtimeName, version: client.version.runtimeVersion };
  const watch = new RuntimeWatch(client, config.runtimeEndpoint);
  await watch.start();
  const env: RunEnv = {
    registrations: new RegistrationGate(),
    hookLane: new HookLane(),
    resting: new RestingChecks(),
    runId,
    client,
    sequence: new Sequence(),
    settings: checkSettingsOf(config, { cgroupParent: readiness.cgroup.parent, nriTimeouts: nri.timeouts }),
    injectors: availability.heldCreate ? { ...config, createNotHeld: availability.heldCreate } : config,
    nri: nri.socketPath
      ? { socketPath: nri.socketPath }
      : { unavailable: nri.unavailable ?? 'NRI unavailable' },
    host,
    ...(host instanceof NodeHostProbe ? { ownIds: host.ownIds } : {}),
    shared: new SharedOutcomes(),
    ...(besideDetectedKubelet(readiness.kubelet, config)
      ? { disturbance: await besideKubeletMonitor(client, runId, nri.socketPath) }
      : {}),
    ...(config.restartCmd
      ? {
          restart: {
            command: config.restartCmd,
            timeoutMs: config.restartTimeoutMs,
            endpoint: config.runtimeEndpoint,
            onRestarted: () => watch.restarted(),
          },
        }
      : {}),
    signal,
    ...hooks,
  };
  const properties: RunProperties = {
    runId,
    toolVersion,
    runtimeName: runtime.name,
    runtimeVersion: runtime.version,
    criApiVersion: client.version.runtimeApiVersion,
    nriVersion: nri.version ?? 'absent',
    endpoint: config.runtimeEndpoint,
    startedAt: new Date().toISOString(),
    flags: config.flagsText,
    node: hostname(),
    kubelet: readiness.kubelet.signs.length > 0 ? `seen: ${readiness.kubelet.signs.join('; ')}` : 'none seen',
    cgroup: readiness.cgroup,
    ...hostPlatform(),
    ...(nri.socketPath ? { nriSocket: nri.socketPath } : {}),
    ...(nri.socketPath ? { nriTimeouts: nri.timeouts ?? 'not sent' } : {}),
  };
  return {
    env,
    properties,
    availability,
    runtime,
    watch,
    cgroupLease: readiness.cgroupLease,
    creations,
    notes: readiness.notes,
  };
}

/** Stage 2: every selected check to a verdict, in the scheduler's order, until done or stopped. */
async function runChecks(
  config: RunConfig,
  checks: readonly Check[],
  { env, availability, runtime, watch }: Prepared,
  deviations: DeviationSets,
  listener: RunListener,
  signal: AbortSignal,
): Promise<{ results: CheckResult[]; stop: string | undefined }> {
  const reasonOf = () => (signal.reason instanceof Error ? signal.reason.message : 'interrupted');
  // A signal that came during readiness (the proof pods) has fired already: no 'abort' event follows.
  let stop: string | undefined = signal.aborted ? reasonOf() : undefined;
  signal.addEventListener('abort', () => {
    stop ??= reasonOf();
  });
  const results = await runScheduled(
    checks,
    config.parallel,
    {
      stopReason: () => stop,
      notRun: (check, why) => skipped(check, `not run: ${why}`),
      skipsAtOnce: (check) => staticSkipReason(check, availability) !== undefined,
      run: async (check) => {
        listener.onCheckStart(check);
        const why = staticSkipReason(check, availability);
        const result = why
          ? skipped(check, why)
          : await watched(watch, check, listener, () => runWithFlakeAttempts(env, check, config));
        const final = applyDeviations(result, deviations, runtime);
        listener.onCheckEnd(final);
        if (config.failFast && (final.verdict === 'failed' || final.verdict === 'error')) {
          stop ??= `--fail-fast after ${check.id} ${final.verdict}`;
        }
        return final;
      },
    },
    env.resting,
  );
  return { results, stop };
}

/** Runs a check under the crash watch; a crash it saw is announced at once and reported with the run. */
async function watched(
  watch: RuntimeWatch,
  check: Check,
  listener: RunListener,
  run: () => Promise<CheckResult>,
): Promise<CheckResult> {
  watch.checkStarted(check.id);
  const result = await run();
  const crash = await watch.checkEnded(check.id);
  if (crash) listener.onNote(describeCrash(crash));
  return result;
}

async function runWithFlakeAttempts(env: RunEnv, check: Check, config: RunConfig): Promise<CheckResult> {
  let result = await executeCheck(env, check, config.checkTimeoutMs);
  // Trial checks already repeat their race; re-running them until one passes would hide a violation.
  for (
    let attempt = 1;
    attempt <= config.flakeAttempts && !check.trials && result.verdict === 'failed';
    attempt++
  ) {
    const first = result.message ?? '';
    // A re-attempt runs its scenarios anew: a recorded outcome would only repeat the failure.
    result = await executeCheck({ ...env, shared: new SharedOutcomes() }, check, config.checkTimeoutMs);
    result.observations.flake = `attempt ${attempt + 1}; earlier failure: ${first}`;
  }
  return result;
}

function skipped(check: Check, message: string): CheckResult {
  return {
    ...identityOf(check),
    verdict: 'skipped',
    durationMs: 0,
    message,
    observations: {},
    timeline: [{ kind: 'note', seq: 0, atMs: 0, text: `${displayName(check)}: ${message}` }],
  };
}
