/**
 * `cri-conform doctor`: is this node ready for a run with these flags, and if not, what to fix. It takes
 * every flag of `run` and asks the same readiness probes a run asks before it starts, so the two agree.
 */
import type { Command } from 'commander';
import type { Finding, SkipForecast } from '../harness/readiness/readiness-types.js';
import { configFromFlags, selectedChecks } from './command-config.js';
import { deadInstanceDirs, deadInstancesFinding } from './dead-instances.js';
import { VALUES_HELP } from './durations.js';
import type { Io } from './io.js';
import { describeInstance, maybeIsolated } from './isolated.js';
import { addRunOnlyOptions, addRunOptions } from './options.js';
import type { RunFlags } from './resolve-config.js';
import { stoppedBySignal } from './signals.js';
import { pruneEmptyStateDirs } from './state-dirs.js';

const HELP = `
It takes every flag of run (report and pacing flags have no effect here), so a run's command line can be
checked by changing the verb. It proves each configured injector with one short pod labelled
cri-conform.io/run (removed again, with any process of it the runtime lost track of, as a run's final
sweep does; \`cri-conform cleanup\` finds both if doctor is killed), and lists the selected checks that will
skip with these flags, by the rule run applies.

Exit code 0 when a run with these flags can start (some checks may skip), 2 when it would stop at once.

Example:
  $ cri-conform doctor -r unix:///run/containerd/containerd.sock --nri-socket /var/run/nri/nri.sock --level all`;

const MARK = { ok: 'ok  ', warn: 'warn', fatal: 'FAIL' } as const;

export function addDoctor(program: Command, io: Io, setExit: (code: number) => void): void {
  const cmd = program
    .command('doctor')
    .description(
      'check that the runtime, NRI, images and injectors are ready for a run with these flags, and say what to fix',
    );
  // run's own flags too, so that a run's whole command line is checked by changing the verb; they do nothing.
  addRunOnlyOptions(addRunOptions(cmd))
    .addHelpText('after', `${VALUES_HELP}${HELP}`)
    .action(async (flags: RunFlags & { config?: string; color?: boolean }) => {
      setExit(await doctor(flags, io));
    });
}

async function doctor(flags: RunFlags & { config?: string; color?: boolean }, io: Io): Promise<number> {
  const { color: _plainOutput, html: _html, baseline: _baseline, sonobuoy: _sonobuoy, ...rest } = flags;
  const config = configFromFlags(rest, io);
  // A signal is honoured between steps: never mid-probe, whose pods must go first (signals.ts says why).
  const again = 'run doctor again for a verdict';
  if (stoppedBySignal(io.signal, io.err, again)) return 2;
  // It reads --expected-deviations as run does: the two must not disagree about a command line.
  const checks = await selectedChecks(config);
  // Loaded here, not at the top: grpc and protobuf would slow down --help.
  const [{ connectRuntime }, { doctorReadiness }] = await Promise.all([
    import('../harness/runtime/environment.js'),
    import('../harness/readiness/doctor-readiness.js'),
  ]);
  // On stderr, as a run's notes and --isolated's are: stdout stays the findings.
  const note = (text: string) => io.err(`cri-conform: ${text}\n`);
  // Once doctor's pod logs and its private instance are gone, so are the folders they were in, as for a run.
  const { value: readiness, record } = await maybeIsolated(
    config,
    io,
    async (target) => {
      const client = await connectRuntime(target);
      return doctorReadiness(client, target, checks, note).finally(() => client.close());
    },
    { announce: false },
  ).finally(() => pruneEmptyStateDirs());
  if (stoppedBySignal(io.signal, io.err, again)) return 2;
  // With --isolated those were removed before its own instance started (maybeIsolated).
  const endpoint = config.runtimeEndpoint;
  const dead = config.isolated ? undefined : deadInstancesFinding(endpoint, deadInstanceDirs(endpoint));
  if (record) {
    io.out(formatFinding({ severity: 'ok', what: describeInstance(record) }));
    for (const note of record.imageNotes ?? []) io.out(formatFinding({ severity: 'ok', what: note }));
  }
  for (const f of [...readiness.findings, ...(dead ? [dead] : [])]) io.out(formatFinding(f));
  io.out(formatSkips(readiness.skips, checks.length));
  const ready = !readiness.findings.some((f) => f.severity === 'fatal');
  io.out(
    ready
      ? `ready: a run with these flags can start; ${readiness.skips.length} of ${checks.length} selected checks will skip\n`
      : 'not ready: a run with these flags stops before any check (exit 2); fix what FAIL says\n',
  );
  return ready ? 0 : 2;
}

function formatFinding(f: Finding): string {
  return `${MARK[f.severity]} ${f.what}${f.severity !== 'ok' && f.fix ? `\n       -> ${f.fix}` : ''}\n`;
}

/** The forecast grouped by reason, in catalogue order within each group. */
function formatSkips(skips: readonly SkipForecast[], selected: number): string {
  if (skips.length === 0) return `skips: none of the ${selected} selected checks skips before it starts\n`;
  const byReason = new Map<string, string[]>();
  for (const { check, reason } of skips) byReason.set(reason, [...(byReason.get(reason) ?? []), check.id]);
  const groups = [...byReason].map(([reason, ids]) => `  ${ids.join(' ')}\n       -> ${reason}\n`);
  return `skips: ${skips.length} of ${selected} selected checks will skip before they start:\n${groups.join('')}`;
}
