/**
 * The live console reporter: one line per finished check, the failure's message and timeline tail right
 * under it, and a summary table at the end. Color comes from the caller (the CLI resolves --color,
 * NO_COLOR and FORCE_COLOR); with color off the output holds no escape codes at all.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import type { CheckResult, RunOutcome, RunProperties, Verdict } from '../harness/result.js';
import { countVerdicts, groupBySuite, VERDICT_ORDER } from './tally.js';
import { cleanText, formatMs, timelineTail } from './text.js';

export interface ConsoleIo {
  write(s: string): void;
  /** A terminal gets a transient "running ..." line that is overwritten, never left in the log. */
  isTTY: boolean;
}

export interface ConsoleReporter {
  onStart(total: number, props: RunProperties): void;
  onCheckStart(id: string, title: string): void;
  onCheckEnd(result: CheckResult): void;
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

export function createConsoleReporter(io: ConsoleIo, opts: { color: boolean }): ConsoleReporter {
  const c = new Chalk({ level: opts.color ? 1 : 0 });
  const running = new Map<string, string>();
  let total = 0;
  let done = 0;
  let transient = '';

  /** Every write goes through here so the transient line never mixes with real output. */
  const write = (s: string) => {
    if (transient) io.write(`\r${' '.repeat(transient.length)}\r`);
    transient = '';
    io.write(s);
    if (io.isTTY && running.size > 0) {
      const ids = [...running.keys()];
      const shown = ids.length === 1 ? (running.get(ids[0] ?? '') ?? '') : ids.join(', ');
      transient = `  … ${done}/${total} done, running ${shown}`.slice(0, 110);
      io.write(c.dim(transient));
    }
  };

  return {
    onStart(count, props) {
      total = count;
      const nri = props.nriVersion === 'absent' ? 'no NRI' : `NRI ${props.nriVersion}`;
      write(
        `${c.bold(`cri-conform ${props.toolVersion}`)} run ${props.runId}: ${count} checks against ` +
          `${props.runtimeName} ${props.runtimeVersion} (CRI ${props.criApiVersion}, ${nri}) at ${props.endpoint}\n`,
      );
    },
    onCheckStart(id, title) {
      running.set(id, title);
      if (io.isTTY) write('');
    },
    onCheckEnd(r) {
      running.delete(r.id);
      done += 1;
      write(`${checkLines(c, r).join('\n')}\n`);
    },
    onEnd(outcome) {
      running.clear();
      write(`${summaryLines(c, outcome).join('\n')}\n`);
    },
  };
}

function checkLines(c: ChalkInstance, r: CheckResult): string[] {
  const mark = MARKS[r.verdict];
  const head = `${mark.paint(c)(`${mark.symbol} ${mark.word.padEnd(WORD_WIDTH)}`)} ${c.bold(r.id)} ${r.title} [${r.level}] ${c.dim(`(${formatMs(r.durationMs)})`)}`;
  const lines = [head];
  const indent = (s: string, pad = '    ') =>
    cleanText(s)
      .split('\n')
      .map((l) => `${pad}${l}`);
  if (r.message) {
    const text = indent(r.message);
    lines.push(...(r.verdict === 'failed' || r.verdict === 'error' ? text : text.map((l) => c.dim(l))));
  }
  if (r.verdict === 'failed' && r.knownIssue) lines.push(`    ${knownIssueText(r.knownIssue)}`);
  if (r.trials)
    lines.push(c.dim(`    trials: ${r.trials.violated} of ${r.trials.run} violated the contract`));
  const obs = Object.entries(r.observations);
  if (obs.length > 0) lines.push(c.dim(`    ${obs.map(([k, v]) => `${k}=${cleanText(v)}`).join('  ')}`));
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

/** A failure that matches a known runtime issue says so; it stays a failure. */
function knownIssueText(k: NonNullable<CheckResult['knownIssue']>): string {
  return `known runtime issue: ${k.links.join(' ')}`;
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
      const reason = cleanText(r.message ?? '(no message)').split('\n')[0] ?? '';
      lines.push(`  ${mark.paint(c)(mark.symbol)} ${r.id} ${r.title}: ${reason}`);
      // On a line of its own, so that shortening a long reason never cuts the link off.
      if (r.knownIssue) lines.push(`      ${knownIssueText(r.knownIssue)}`);
    }
  }
  if (outcome.interrupted) lines.push('', c.yellow(`Interrupted: ${cleanText(outcome.interrupted)}`));
  lines.push('', `${outcome.results.length} checks in ${formatMs(outcome.durationMs)} (wall time)`);
  return lines;
}
