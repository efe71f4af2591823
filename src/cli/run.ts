/** `cri-conform run`: select, run, report. */
import type { Command } from 'commander';
import { displayName } from '../harness/check.js';
import { configFromFlags, selectedChecks } from './command-config.js';
import { exitCodeFor } from './exit.js';
import { type Io, useColor } from './io.js';
import { addRunOptions, addWorkerOption } from './options.js';
import type { RunFlags } from './resolve-config.js';
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
  addRunOptions(cmd);
  addWorkerOption(cmd);
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
  const { color, ...runFlags } = flags;
  const config = configFromFlags(runFlags, io);
  const checks = await selectedChecks(config);

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
  return exitCodeFor(outcome, { strictDeviations: config.strictDeviations === true });
}
