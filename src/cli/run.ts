/** `cri-conform run`: select, run, report. */
import { type Command, Option } from 'commander';
import { displayName } from '../harness/check.js';
import { selectChecks } from '../harness/selection.js';
import { CRICTL_CONFIG, readConfigFile } from './config-file.js';
import { UsageError } from './errors.js';
import { exitCodeFor } from './exit.js';
import { type Io, useColor } from './io.js';
import { addEndpointOptions, addNriSocketOption, colorOptions } from './options.js';
import { type RunFlags, resolveRunConfig } from './resolve-config.js';
import { TOOL_VERSION } from './version.js';

const EXAMPLES = `
Examples:
  # everything that MUST hold, against the local containerd
  $ cri-conform run

  # a throwaway containerd set up by scripts/containerd-up.sh (it prints these exports)
  $ eval "$(sudo scripts/containerd-up.sh --version 1.7)" && cri-conform run --level all

  # only the NRI hook-ordering suite, failing if NRI is not enabled
  $ cri-conform run --suite hooks --require-nri --nri-socket /var/run/nri/nri.sock

  # one check by ID, five times as many race trials, JUnit for CI
  $ cri-conform run --focus '^IDEM-01 ' --trials 25 --junit out/junit.xml

Exit codes: 0 every selected check passed (or is an expected deviation), 1 a check failed,
2 bad usage, the runtime could not be reached or set up, or the run was interrupted.`;

export function addRun(program: Command, io: Io, setExit: (code: number) => void): void {
  const cmd = program
    .command('run')
    .description('run the conformance suites against a runtime and write reports');
  addEndpointOptions(cmd);
  addNriSocketOption(cmd);
  cmd
    .option('--suite <name...>', 'only these suites: idempotency, names, hooks, teardown (repeatable)')
    .addOption(
      new Option('--level <level>', 'must: MUST checks; should: also SHOULD; all: also OBSERVE').choices([
        'must',
        'should',
        'all',
      ]),
    )
    .option('--focus <regex>', 'only checks whose "ID title" matches')
    .option('--skip <regex>', 'leave out checks whose "ID title" matches')
    .option('--slow', 'also run [Slow] checks (cache TTLs; minutes)')
    .option('--require-nri', 'fail (exit 2) instead of skipping NRI checks when NRI is unavailable')
    .option('--nri-request-timeout <duration>', "the runtime's NRI plugin request timeout (default 2s)")
    .option(
      '--runtime-handler <name>',
      'runtime handler for the pods checks create (default: the runtime default)',
    )
    .option(
      '--slow-runtime-handler <name>',
      'runtime handler whose runtime sleeps on create (injector; see README)',
    )
    .option('--slow-runtime-dir <dir>', "control dir of that handler's wrapper: delay-ms, created.log")
    .option('--slow-cni-dir <dir>', 'control dir of a CNI wrapper that sleeps on ADD: delay-ms')
    .option('--test-image <ref>', 'image for workload containers (default localhost/cri-conform/busybox:1)')
    .option(
      '--pause-image <ref>',
      "the runtime's sandbox image, checked for presence (default localhost/cri-conform/pause:1)",
    )
    .addOption(
      new Option(
        '--pull <policy>',
        'image pull policy (default missing; never for air-gapped nodes)',
      ).choices(['never', 'missing', 'always']),
    )
    .option('--restart-cmd <command>', 'shell command that restarts the runtime ([Restart] checks)')
    .option('--restart-timeout <duration>', 'how long the runtime may take to come back (default 60s)')
    .option('--cache-ttl <duration>', 'how long a runtime may keep a timed-out resource (default 150s)')
    .option('--trials <n>', 'repetitions of race-prone scenarios (default 5)')
    .option('--parallel <n>', 'CRI-only checks run at once (default 2; NRI checks always run alone)')
    .option('--timeout <duration>', 'deadline of each check (default 5m)')
    .option('--run-timeout <duration>', 'deadline of the whole run (default none)')
    .option('--fail-fast', 'stop after the first failure')
    .option('--flake-attempts <n>', 're-runs of a failed non-trial check (default 0; a flake is recorded)')
    .addOption(
      new Option('--node-probes <mode>', 'host leak probes: auto (root on a local socket), on, off').choices([
        'auto',
        'on',
        'off',
      ]),
    )
    .option('--report-dir <dir>', 'where reports go (default reports/, created if missing)')
    .option('--report-prefix <prefix>', 'prefix of report file names')
    .option('--junit <file>', 'JUnit file (default <report-dir>/<prefix>junit.xml)')
    .option('--json <file>', 'JSON results file (default <report-dir>/<prefix>results.json)')
    .option(
      '--expected-deviations <file>',
      'YAML list of known runtime deviations (id, runtime, version, reason, link)',
    )
    .option(
      '--sonobuoy',
      'run as a Sonobuoy/DaemonSet worker: find the host runtime, write JUnit and done to $SONOBUOY_RESULTS_DIR, then wait for SIGTERM (deploy/sonobuoy/)',
    );
  colorOptions(cmd);
  cmd.addHelpText('after', EXAMPLES);
  cmd.action(async (flags: RunFlags & { config?: string; color?: boolean }) => {
    if (flags.sonobuoy) {
      const { runSonobuoyWorker } = await import('./sonobuoy/worker.js');
      setExit(await runSonobuoyWorker(flags, io));
      return;
    }
    setExit(await runCommand(flags, io));
  });
}

async function runCommand(flags: RunFlags & { config?: string; color?: boolean }, io: Io): Promise<number> {
  const { config: configPath, color, ...runFlags } = flags;
  const file = readConfigFile(configPath ?? CRICTL_CONFIG, configPath !== undefined);
  const config = resolveRunConfig(runFlags, io.env, file);
  const { ALL_CHECKS } = await import('../../suites/index.js');
  const checks = selectChecks(ALL_CHECKS, config);
  if (checks.length === 0)
    throw new UsageError(
      'the selection (--suite/--level/--focus/--skip) selects no check; see `cri-conform list`',
    );

  // Loaded here, not at the top: grpc and protobuf would slow down --help and list.
  const [{ runConformance }, { createConsoleReporter }, { writeReports }] = await Promise.all([
    import('../harness/run.js'),
    import('../report/console.js'),
    import('../report/junit.js'),
  ]);
  const reporter = createConsoleReporter({ write: io.out, isTTY: io.isTTY }, { color: useColor(color, io) });
  const signals = [io.signal, ...(config.runTimeoutMs ? [AbortSignal.timeout(config.runTimeoutMs)] : [])];
  const outcome = await runConformance(
    config,
    checks,
    {
      onStart: (total, props) => reporter.onStart(total, props),
      onCheckStart: (c) => reporter.onCheckStart(c.id, displayName(c)),
      onCheckEnd: (r) => reporter.onCheckEnd(r),
      onNote: (text) => io.err(`cri-conform: ${text}\n`),
    },
    AbortSignal.any(signals),
    TOOL_VERSION,
  );
  reporter.onEnd(outcome);
  const files = await writeReports(outcome, {
    dir: config.reportDir,
    prefix: config.reportPrefix,
    ...(config.junitFile ? { junitFile: config.junitFile } : {}),
    ...(config.jsonFile ? { jsonFile: config.jsonFile } : {}),
  });
  io.out(`reports: ${files.join(', ')}\n`);
  return exitCodeFor(outcome);
}
