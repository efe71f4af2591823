/**
 * The live console reporter: one line per finished check in catalogue order, the failure's message and
 * timeline tail right under it, a known issue's links, and a summary table at the end. A terminal gets a
 * live "[n/50] ID elapsed" line; a log gets a plain line as each check starts, and the same running line
 * when it has had no line for a while, so a long check is never mistaken for a hang. No line passes 300
 * characters. Color comes from the caller (the CLI resolves --color, NO_COLOR and FORCE_COLOR); with color
 * off the output holds no escape codes at all.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import {
  type CheckResult,
  describeCgroup,
  describeCrash,
  type RunOutcome,
  type RunProperties,
  type Verdict,
} from '../harness/check/result.js';
import { CONSOLE_LINE_MAX, capLine, collapseRetries, wrapAtSeparators } from './console-text.js';
import { type RunningCheck, renderLiveLine, renderStartLine, StartOrder } from './progress.js';
import { countVerdicts, groupBySuite, VERDICT_ORDER } from './tally.js';
import {
  cleanText,
  countOf,
  describeCpu,
  describeHookLane,
  describeKnownIssues,
  describeNotRun,
  describeTrials,
  formatMs,
  notRunMark,
  timelineTail,
} from './text.js';

export interface ConsoleIo {
  write(s: string): void;
  /** A terminal gets a transient "running ..." line that is overwritten, never left in the log. */
  isTTY: boolean;
}

export interface ConsoleReporter {
  onStart(total: number, props: RunProperties): void;
  onCheckStart(id: string, title: string): void;
  onCheckEnd(result: CheckResult): void;
  /** A race check's trial ended: `done` of `planned` are over. */
  onTrialEnd(id: string, done: number, planned: number): void;
  onEnd(outcome: RunOutcome): void;
}

/** Timeline lines printed under a failure or error; the full timeline is in the JUnit/JSON reports. */
export const TIMELINE_TAIL_LINES = 20;

const MARKS: Record<Verdict, { symbol: string; word: string; paint: (c: ChalkInstance) => ChalkInstance }> = {
  passed: { symbol: '✔', word: 'PASS', paint: (c) => c.green },
  failed: { symbol: '✘', word: 'FAIL', paint: (c) => c.red.bold },
  error: { symbol: '!', word: 'ERROR', paint: (c) => c.magenta.bold },
  skipped: { symbol: '-', word: 'SKIP', paint: (c) => c.gray },
  deviation: { symbol: '~', word: 'DEVIATION', paint: (c) => c.yellow },
  observed: { symbol: '●', word: 'OBSERVED', paint: (c) => c.cyan },
};
const WORD_WIDTH = Math.max(...Object.values(MARKS).map((m) => m.word.length));

/** How often a terminal's live line redraws its elapsed times. */
const TICK_MS = 1_000;
/**
 * How long a log goes without a line before it is told what is still running: a check's race trials can
 * take minutes (IDEM-15 over five on a 2-core machine), and a CI log silent that long reads as a hang.
 */
export const LOG_QUIET_MS = 30_000;

export function createConsoleReporter(
  io: ConsoleIo,
  opts: { color: boolean; logQuietMs?: number },
): ConsoleReporter {
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const running = new Map<string, RunningCheck>();
  const order = new StartOrder<CheckResult>();
  let total = 0;
  let transient = '';
  let ticker: ReturnType<typeof setInterval> | undefined;
  let lastWriteAt = performance.now();
  const logQuietMs = opts.logQuietMs ?? LOG_QUIET_MS;

  const live = () => renderLiveLine([...running.values()], total, performance.now());
  /** Every write goes through here so the live line never mixes with real output. */
  const write = (s: string) => {
    if (transient) io.write(`\r${' '.repeat(transient.length)}\r`);
    transient = '';
    io.write(s);
    if (s !== '') lastWriteAt = performance.now();
    if (io.isTTY && running.size > 0) {
      transient = live();
      io.write(c.dim(transient));
    }
  };
  const printResults = (results: readonly CheckResult[]) => {
    if (results.length > 0)
      write(
        `${results
          .flatMap((r) => checkLines(c, r))
          .map((l) => capLine(l))
          .join('\n')}\n`,
      );
  };

  return {
    onStart(count, props) {
      total = count;
      const nri = props.nriVersion === 'absent' ? 'no NRI' : `NRI ${props.nriVersion}`;
      write(
        `${capLine(
          `${c.bold(`cri-conform ${props.toolVersion}`)} run ${props.runId}: ${countOf(count, 'check')} against ` +
            `${props.runtimeName} ${props.runtimeVersion} (CRI ${props.criApiVersion}, ${nri}) at ${props.endpoint}`,
        )}\n`,
      );
      if (props.cgroup) write(`${c.dim(capLine(`  pods: ${describeCgroup(props.cgroup)}`))}\n`);
      ticker = io.isTTY
        ? setInterval(() => write(''), TICK_MS)
        : setInterval(() => {
            if (running.size > 0 && performance.now() - lastWriteAt >= logQuietMs)
              write(`${c.dim(capLine(`still running: ${live()}`))}\n`);
          }, logQuietMs / 2);
      ticker.unref();
    },
    onCheckStart(id, title) {
      const position = order.start(id);
      running.set(id, { id, position, startedAtMs: performance.now() });
      if (io.isTTY) write('');
      else write(`${c.dim(capLine(renderStartLine(position, total, title)))}\n`);
    },
    onTrialEnd(id, done, planned) {
      const check = running.get(id);
      if (check) check.trials = { done, planned };
    },
    onCheckEnd(r) {
      running.delete(r.id);
      printResults(order.finish(r.id, r));
    },
    onEnd(outcome) {
      running.clear();
      if (ticker) clearInterval(ticker);
      printResults(order.flush());
      write(
        `${summaryLines(c, outcome)
          .map((l) => capLine(l))
          .join('\n')}\n`,
      );
    },
  };
}

function checkLines(c: ChalkInstance, r: CheckResult): string[] {
  const mark = MARKS[r.verdict];
  const parts = notRunMark(r);
  const head = `${mark.paint(c)(`${mark.symbol} ${mark.word.padEnd(WORD_WIDTH)}`)} ${c.bold(r.id)} ${parts ? `${c.yellow(parts)} ` : ''}${r.title} [${r.level}] ${c.dim(`(${formatMs(r.durationMs)})`)}`;
  const lines = [head];
  const notRun = parts ? describeNotRun(r) : undefined;
  if (notRun)
    lines.push(...wrapAtSeparators(cleanText(notRun), CONSOLE_LINE_MAX - 6).map((l) => `    ${c.yellow(l)}`));
  const indent = (s: string, pad = '    ') =>
    collapseRetries(cleanText(s))
      .split('\n')
      .flatMap((l) => wrapAtSeparators(l, CONSOLE_LINE_MAX - pad.length - 2))
      .map((l) => `${pad}${l}`);
  if (r.message) {
    const text = indent(r.message);
    lines.push(...(r.verdict === 'failed' || r.verdict === 'error' ? text : text.map((l) => c.dim(l))));
  }
  if (r.verdict === 'failed') lines.push(...describeKnownIssues(r).map((l) => `    ${l}`));
  const trials = describeTrials(r);
  if (trials) lines.push(c.dim(`    ${trials}`));
  const obs = Object.entries(r.observations);
  // One observation per line once they no longer fit on one: long runtime messages are common here.
  const flat = obs.map(([k, v]) => `${k}=${cleanText(v).replace(/\s*\n\s*/g, ' ')}`);
  if (flat.join('  ').length <= 200) {
    if (flat.length > 0) lines.push(c.dim(`    ${flat.join('  ')}`));
  } else lines.push(...flat.map((o) => c.dim(`    ${o}`)));
  if ((r.verdict === 'failed' || r.verdict === 'error') && r.timeline.length > 0) {
    lines.push(
      c.dim(
        `    timeline (last ${Math.min(TIMELINE_TAIL_LINES, r.timeline.length)} of ${r.timeline.length}):`,
      ),
    );
    lines.push(...timelineTail(r.timeline, TIMELINE_TAIL_LINES).map((l) => c.dim(`      ${l}`)));
  }
  return lines;
}

function summaryLines(c: ChalkInstance, outcome: RunOutcome): string[] {
  const header = ['suite', ...VERDICT_ORDER];
  const rows: string[][] = [];
  for (const [suite, results] of groupBySuite(outcome.results)) {
    const counts = countVerdicts(results);
    rows.push([suite, ...VERDICT_ORDER.map((v) => String(counts[v]))]);
  }
  const totals = countVerdicts(outcome.results);
  rows.push(['total', ...VERDICT_ORDER.map((v) => String(totals[v]))]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');

  const lines = [
    '',
    c.bold('Summary'),
    c.bold(fmt(header)),
    ...rows.slice(0, -1).map(fmt),
    c.bold(fmt(rows.at(-1) ?? [])),
  ];
  const bad = outcome.results.filter((r) => r.verdict === 'failed' || r.verdict === 'error');
  if (bad.length > 0) {
    lines.push('', c.bold('Failures and errors'));
    for (const r of bad) {
      const mark = MARKS[r.verdict];
      const reason = collapseRetries(cleanText(r.message ?? '(no message)').split('\n')[0] ?? '');
      lines.push(`  ${mark.paint(c)(mark.symbol)} ${r.id} ${r.title}: ${reason}`);
      // On a line of its own, so that shortening a long reason never cuts the link off.
      lines.push(...describeKnownIssues(r).map((l) => `      ${l}`));
    }
  }
  const crashes = outcome.runtimeCrashes ?? [];
  if (crashes.length > 0) {
    lines.push('', c.bold('Runtime crashes (each fails the run)'));
    for (const crash of crashes) lines.push(`  ${c.red('✘')} ${cleanText(describeCrash(crash))}`);
  }
  if (outcome.interrupted) lines.push('', c.yellow(`Interrupted: ${cleanText(outcome.interrupted)}`));
  const disturbed = outcome.results.filter((r) => r.observations.disturbed !== undefined).length;
  if (disturbed > 0)
    lines.push(
      '',
      c.yellow(
        `${disturbed === 1 ? '1 check was' : `${disturbed} checks were`} disturbed: another client (a kubelet?) stopped or removed their pods, so they end in ERROR`,
      ),
    );
  lines.push(
    '',
    `${countOf(outcome.results.length, 'check')} in ${formatMs(outcome.durationMs)} (wall time)`,
  );
  if (outcome.cpu) lines.push(`CPUs: ${describeCpu(outcome.cpu)}`);
  if (outcome.hookLane) lines.push(`hook lane: ${describeHookLane(outcome.hookLane)}`);
  return lines;
}
