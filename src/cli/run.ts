/** `cri-conform run`: select, run, report. */
import type { Command } from 'commander';
import { displayName } from '../harness/check/check.js';
import type { RunOutcome } from '../harness/check/result.js';
import { EnvironmentError } from '../harness/core/errors.js';
import type { RunConfig } from '../harness/core/settings.js';
import type { InstanceRecord } from '../harness/runtime-instance.js';
import { wrapNote } from '../report/console-text.js';
import { configFromFlags, selectedChecks } from './command-config.js';
import { VALUES_HELP } from './durations.js';
import { UsageError } from './errors.js';
import { EXIT_USAGE, exitCodeFor } from './exit.js';
import { type Io, useColor } from './io.js';
import { maybeIsolated } from './isolated.js';
import { addRunOnlyOptions, addRunOptions } from './options.js';
import type { RunFlags } from './resolve-config.js';
import { checkReportPaths, loadExtraReports, notStartedOutcome, writeRunReports } from './run-reports.js';
import { pruneEmptyStateDirs } from './state-dirs.js';
import { TOOL_VERSION } from './version.js';

const EXAMPLES = `
Examples:
  # everything that MUST hold, against the local containerd
  $ cri-conform run

  # on a node with a kubelet: a private copy of the node's containerd, removed afterwards
  $ cri-conform run --isolated --level all

  # a throwaway containerd set up by scripts/containerd-up.sh (it prints these exports)
  $ eval "$(sudo scripts/containerd-up.sh --version 1.7)" && cri-conform run --level all

  # only the NRI hook-ordering suite, failing if NRI is not enabled
  $ cri-conform run --suite hooks --require-nri --nri-socket /var/run/nri/nri.sock

  # one check by ID, twice as many race trials, JUnit for CI
  $ cri-conform run --focus '^IDEM-01 ' --trials 40 --junit out/junit.xml

Exit codes: 0 every selected check passed (or is an expected deviation), 1 a check failed,
2 bad usage, the runtime could not be reached or set up, another run was testing it, or the run was
interrupted.`;

export function addRun(program: Command, io: Io, setExit: (code: number) => void): void {
  const cmd = program
    .command('run')
    .description('run the conformance suites against a runtime and write reports');
  addRunOptions(cmd);
  addRunOnlyOptions(cmd);
  cmd.addHelpText('after', `${VALUES_HELP}${EXAMPLES}`);
  cmd.action(async (flags: CommandFlags) => {
    if (flags.sonobuoy) {
      const { runSonobuoyWorker } = await import('./sonobuoy/worker.js');
      setExit(await runSonobuoyWorker(flags, io));
      return;
    }
    setExit(await runCommand(flags, io));
  });
}

type CommandFlags = RunFlags & { config?: string; color?: boolean; html?: string; baseline?: string };

async function runCommand(flags: CommandFlags, io: Io): Promise<number> {
  const { color, html, baseline, ...runFlags } = flags;
  const config = configFromFlags(runFlags, io);
  const extra = await loadExtraReports({ html, baseline });
  await checkReportPaths(config, extra);
  let outcome: RunOutcome;
  try {
    // Once the run's pod logs and its private instance are gone, so are the folders they were in.
    const run = await maybeIsolated(config, io, (runConfig) => runSelected(runConfig, color, io)).finally(
      () => pruneEmptyStateDirs(),
    );
    outcome = run.record ? withInstance(run.value, run.record) : run.value;
  } catch (e) {
    // No verdict, but fresh reports that say why: never leave an earlier run's files behind. Why the run
    // could not start is said first, before the list of reports or a report that could not be written.
    if (e instanceof EnvironmentError || e instanceof UsageError) {
      io.err(`cri-conform: ${e.message}\n`);
      await writeRunReports(notStartedOutcome(config, e), config, extra, io);
      return EXIT_USAGE;
    }
    // A bug: its stack is what matters, so a report that cannot be written only gets a line of its own.
    await writeRunReports(notStartedOutcome(config, e), config, extra, io).catch((w: unknown) => {
      io.err(`cri-conform: ${w instanceof Error ? w.message : String(w)}\n`);
    });
    throw e;
  }
  await writeRunReports(outcome, config, extra, io);
  return exitCodeFor(outcome, { strictDeviations: config.strictDeviations === true });
}

function withInstance(outcome: RunOutcome, isolated: InstanceRecord): RunOutcome {
  return { ...outcome, properties: { ...outcome.properties, isolated } };
}

async function runSelected(config: RunConfig, color: boolean | undefined, io: Io): Promise<RunOutcome> {
  const checks = await selectedChecks(config);
  // Loaded here, not at the top: grpc and protobuf would slow down --help and list.
  const [{ runConformance }, { createConsoleReporter }] = await Promise.all([
    import('../harness/run/run.js'),
    import('../report/console.js'),
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
      onTrialEnd: (id, done, planned) => reporter.onTrialEnd(id, done, planned),
      onNote: (text) => io.err(`${wrapNote(`cri-conform: ${text}`)}\n`),
    },
    AbortSignal.any(signals),
    TOOL_VERSION,
  );
  reporter.onEnd(outcome);
  return outcome;
}
