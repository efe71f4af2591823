/**
 * `cri-conform run --sonobuoy`: the run as a Sonobuoy DaemonSet plugin (or a plain DaemonSet) runs it.
 * Find the node's runtime under the mounted host root, run the selected checks, post progress after each,
 * write the JUnit (tagged with the node) and then `done`, and stay alive until SIGTERM: a DaemonSet
 * restarts a container that exits. Any reason the run cannot start becomes one failing test case, since
 * Sonobuoy judges only the JUnit.
 */
import { hostname } from 'node:os';
import { displayName } from '../../harness/check/check.js';
import type { RunOutcome } from '../../harness/check/result.js';
import { selectChecks } from '../../harness/check/selection.js';
import { EnvironmentError } from '../../harness/core/errors.js';
import type { RunConfig } from '../../harness/core/settings.js';
import { requireKnownDeviationChecks } from '../command-config.js';
import { CRICTL_CONFIG, readConfigFile } from '../config-file.js';
import { UsageError } from '../errors.js';
import { EXIT_USAGE, exitCodeFor } from '../exit.js';
import { type Io, useColor } from '../io.js';
import { orUsageError } from '../output-paths.js';
import { type RunFlags, resolveRunConfig } from '../resolve-config.js';
import { TOOL_VERSION } from '../version.js';
import { type CriProbe, discoverEndpoints } from './discovery.js';
import { fleetImages } from './fleet-images.js';
import { SETUP_CASE_NAME, setupFailureJUnit, withNodeName } from './node-junit.js';
import { ProgressPoster } from './progress.js';
import { ProgressState } from './progress-state.js';
import { DONE_FILE, publishResults, type Reports } from './results-dir.js';
import { untilAborted } from './until-aborted.js';
import {
  fleetFlagsFromEnv,
  fleetSourceOf,
  progressPortFrom,
  readWorkerEnv,
  type WorkerEnv,
} from './worker-env.js';

export type WorkerFlags = RunFlags & { config?: string; color?: boolean };

export async function runSonobuoyWorker(flags: WorkerFlags, io: Io): Promise<number> {
  const startedAt = new Date();
  const worker = readWorkerEnv(io.env, hostname());
  const log = (text: string) => io.err(`cri-conform: ${text}\n`);
  log(`sonobuoy worker on node ${worker.nodeName}; results to ${worker.resultsDir}`);
  let poster: ProgressPoster | undefined;
  let reports: Reports;
  let code: number;
  try {
    poster = new ProgressPoster({ port: progressPortFrom(io.env), onProblem: log });
    const config = await workerRunConfig(flags, io, worker, log);
    const ran = await runFleetChecks(config, flags.color, io, poster, log);
    // The pod's own host name is its pod name: results.json and the HTML report name the node instead.
    const outcome = { ...ran, properties: { ...ran.properties, node: worker.nodeName } };
    const [{ renderJUnit }, { renderJson }, { renderHtml }] = await Promise.all([
      import('../../report/junit.js'),
      import('../../report/json.js'),
      import('../../report/html/render-html.js'),
    ]);
    reports = {
      junit: withNodeName(renderJUnit(outcome), worker.nodeName),
      json: renderJson(outcome),
      html: renderHtml(outcome),
    };
    code = exitCodeFor(outcome);
  } catch (e) {
    const reason = whatToFix(e);
    log(`cannot run: ${reason}`);
    poster?.send({
      msg: `cannot run: ${reason}`,
      total: 1,
      completed: 1,
      errors: [],
      failures: [SETUP_CASE_NAME],
    });
    reports = { junit: setupFailureJUnit(worker.nodeName, reason, startedAt) };
    code = EXIT_USAGE;
  }
  await poster?.flush();
  const resultsDir = await orUsageError(
    () => publishResults(worker.resultsDir, reports),
    () => 'SONOBUOY_RESULTS_DIR',
  );
  io.out(`results: ${resultsDir}; ${DONE_FILE} written; sleeping until SIGTERM\n`);
  await untilAborted(io.signal);
  return code;
}

async function workerRunConfig(
  flags: WorkerFlags,
  io: Io,
  worker: WorkerEnv,
  log: (text: string) => void,
): Promise<RunConfig> {
  const { config: configPath, color: _color, sonobuoy: _sonobuoy, ...given } = flags;
  const merged = fleetFlagsFromEnv(given, io.env);
  if (merged.runtimeEndpoint === undefined) {
    const found = await discoverEndpoints(worker.hostRoot, probeCri);
    for (const note of found.notes) log(note);
    merged.runtimeEndpoint = found.runtimeEndpoint;
    merged.nriSocket ??= found.nriSocket;
  }
  // The default: a private instance of the node's runtime, which no kubelet talks to.
  merged.isolated ??= true;
  if (merged.nodeProbes === undefined && !merged.isolated) {
    // The probes read /proc, cgroups and mounts as this process sees them; a pod sees its own mounts. The
    // private instance knows a process of the node's mount namespace and lets them read the node's.
    merged.nodeProbes = 'off';
    log('host probes are off in a pod, so [Node] checks skip (CRI_CONFORM_NODE_PROBES=on to try them)');
  }
  if (merged.isolated) {
    log(
      "running on a private instance of the node's runtime, started from the node's own binary and config in the node's mount namespace; the kubelet never sees its pods (CRI_CONFORM_ISOLATED=false runs beside the kubelet instead)",
    );
  } else if (merged.besideKubelet === undefined) {
    // The kubelet that started this pod drives the runtime, so a run that refused to share it would run
    // nothing.
    merged.besideKubelet = true;
    log(
      'the kubelet that started this pod drives the runtime: running beside it, so a check whose pods it stops ends in ERROR "disturbed", and checks that restart the runtime or stall its hooks skip',
    );
  }
  const file = readConfigFile(configPath ?? CRICTL_CONFIG, configPath !== undefined);
  const config = resolveRunConfig(merged, io.env, file, fleetSourceOf(given, io.env));
  const named = {
    testImage: merged.testImage !== undefined || file['test-image'] !== undefined,
    pauseImage: merged.pauseImage !== undefined || file['pause-image'] !== undefined,
  };
  return { ...config, ...(await fleetImages(config, named, log)) };
}

async function runFleetChecks(
  config: RunConfig,
  color: boolean | undefined,
  io: Io,
  poster: ProgressPoster,
  log: (text: string) => void,
): Promise<RunOutcome> {
  const { ALL_CHECKS } = await import('../../../suites/index.js');
  requireKnownDeviationChecks(config, ALL_CHECKS);
  const checks = selectChecks(ALL_CHECKS, config);
  if (checks.length === 0) {
    throw new UsageError(
      'the selection (CRI_CONFORM_SUITES/LEVEL/FOCUS/SKIP) selects no check; see `cri-conform list`',
    );
  }
  const [{ runConformance }, { createConsoleReporter }] = await Promise.all([
    import('../../harness/run/run.js'),
    import('../../report/console.js'),
  ]);
  const reporter = createConsoleReporter({ write: io.out, isTTY: false }, { color: useColor(color, io) });
  const progress = new ProgressState();
  const signals = [io.signal, ...(config.runTimeoutMs ? [AbortSignal.timeout(config.runTimeoutMs)] : [])];
  await sweepDeadRunLogs(log);
  // With a private instance, what killed worker pods left of theirs goes first (isolated.ts).
  const { maybeIsolated } = await import('../isolated.js');
  const run = await maybeIsolated(config, io, (runConfig) =>
    runConformance(
      runConfig,
      checks,
      {
        onStart: (total, props) => {
          reporter.onStart(total, props);
          poster.send(progress.start(total, `running on ${props.runtimeName} ${props.runtimeVersion}`));
        },
        onCheckStart: (c) => reporter.onCheckStart(c.id, displayName(c)),
        onTrialEnd: (id, done, planned) => reporter.onTrialEnd(id, done, planned),
        onCheckEnd: (r) => {
          reporter.onCheckEnd(r);
          poster.send(progress.checkEnded(r));
        },
        onNote: log,
      },
      AbortSignal.any(signals),
      TOOL_VERSION,
    ),
  );
  const outcome = run.record
    ? { ...run.value, properties: { ...run.value.properties, isolated: run.record } }
    : run.value;
  reporter.onEnd(outcome);
  poster.send(progress.finish(outcome.interrupted ? `interrupted: ${outcome.interrupted}` : 'complete'));
  return outcome;
}

/**
 * A worker pod killed mid-run left its checks' container logs in the host's pod log root, which this pod
 * mounts; with the host's PID namespace it can tell that the run that owns them is gone.
 */
async function sweepDeadRunLogs(log: (text: string) => void): Promise<void> {
  const { removeDeadRunLogs } = await import('../../harness/host/pod-logs.js');
  const { removed, problems } = removeDeadRunLogs();
  for (const dir of removed) log(`removed the pod logs ${dir} a killed run left`);
  for (const problem of problems) log(`could not remove ${problem}`);
}

function whatToFix(e: unknown): string {
  if (e instanceof UsageError || e instanceof EnvironmentError) return e.message;
  const err = e instanceof Error ? e : new Error(String(e));
  return `internal error (please report it): ${err.stack ?? err.message}`;
}

/** Whether an endpoint answers CRI; asked only when several runtime sockets exist. */
const probeCri: CriProbe = async (endpoint) => {
  const { CriClient } = await import('../../cri/client.js');
  try {
    const client = await CriClient.connect({ runtimeEndpoint: endpoint, connectTimeoutMs: 3_000 });
    client.close();
    return `${client.version.runtimeName} ${client.version.runtimeVersion}`;
  } catch {
    return undefined;
  }
};
