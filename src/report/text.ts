/**
 * Plain-text pieces every reporter shares: one line per timeline entry, durations for people, and the
 * clean-up of text that came from elsewhere (runtime messages, assertion diffs) before it is printed or
 * embedded in XML/JSON.
 */

import type { HookLaneUse } from '../harness/check/lane-use.js';
import {
  type CheckResult,
  describeTracking,
  type KnownIssue,
  knownIssuesOf,
  type RunProperties,
  sameKnownIssue,
  type TimelineEntry,
} from '../harness/check/result.js';
import type { MachineCpu } from '../harness/host/machine-cpu.js';

/** CSI sequences (colors, cursor moves) and OSC sequences (hyperlinks, titles). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding escape sequences is this regex's job
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;
/** Characters XML 1.0 cannot carry, even escaped: C0 controls except tab/LF/CR, and U+FFFE/U+FFFF. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's job
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
/** Half of a surrogate pair without the other half: not a character, so not valid XML (or UTF-8). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

/** Text safe for any report: no ANSI codes, no characters XML rejects. Newlines and tabs stay. */
export function cleanText(s: string): string {
  return stripAnsi(s).replace(NOT_XML, '').replace(LONE_SURROGATE, '');
}

/** "1 check", "2 checks": a count with its noun. */
export function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * Text wrapped at `width` columns on word boundaries: the first line starts with `indent`, the others
 * with `hang`. A word longer than a line keeps a line of its own.
 */
export function wrapText(text: string, width: number, indent = '', hang = indent): string[] {
  const lines: string[] = [];
  let line = indent;
  let empty = true;
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = hang;
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    empty = false;
  }
  lines.push(line);
  return lines;
}

/** "host part not run: <why>; container variant not run: <why>": what a check could not test here. */
export function describeNotRun(r: Pick<CheckResult, 'notRun'>): string | undefined {
  if (!r.notRun || r.notRun.length === 0) return undefined;
  return r.notRun.map((n) => `${n.part} not run: ${n.why}`).join('; ');
}

/**
 * "(host part not run)": the mark a PASS carries in its verdict line when part of its contract could not
 * be tested here, so that it never reads as a full pass. Empty for other verdicts, whose message leads.
 */
export function notRunMark(r: Pick<CheckResult, 'notRun' | 'verdict'>): string {
  if (r.verdict !== 'passed' || !r.notRun || r.notRun.length === 0) return '';
  return `(${r.notRun.map((n) => `${n.part} not run`).join(', ')})`;
}

/** The runtime's NRI plugin timeouts as a run recorded them: a hook slower than the request timeout fails. */
export function describeNriTimeouts(t: NonNullable<RunProperties['nriTimeouts']>): string {
  if (t === 'not sent')
    return 'not sent by the runtime (its NRI predates v0.7, whose Configure carries them)';
  return `plugin request ${formatMs(t.requestMs)}, registration ${formatMs(t.registrationMs)} (as the runtime sent them to cri-conform's plugin)`;
}

/** "850 ms", "12.3 s", "2m 05s". */
export function formatMs(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const s = Math.round(ms / 1_000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

/**
 * "known runtime issue: <links>", a line per issue a failure names. Where a violation matches no entry,
 * each says how many violations it explains ("known runtime issue of 1 of 2 violations: ..."): a FAIL
 * beside a known bug must not read as the known bug.
 */
export function describeKnownIssues(r: Pick<CheckResult, 'knownIssue' | 'violations'>): string[] {
  // Two entries of one drafted report (two ways of one bug) are one line: the line names the tracking only.
  const sameTracking = (a: KnownIssue, b: KnownIssue) => describeTracking(a) === describeTracking(b);
  return knownIssueShares(r, sameTracking).map(
    ({ issue, of }) => `known runtime issue${of}: ${describeTracking(issue)}`,
  );
}

/**
 * Each known issue of a result (told apart by `same`), with " of 1 of 2 violations" where some violation
 * matches no entry.
 */
export function knownIssueShares(
  r: Pick<CheckResult, 'knownIssue' | 'violations'>,
  same: (a: KnownIssue, b: KnownIssue) => boolean = sameKnownIssue,
): { issue: KnownIssue; of: string }[] {
  const violations = r.violations ?? [];
  const someUnknown = violations.some((v) => v.knownIssue === undefined);
  return knownIssuesOf(r, same).map((issue) => {
    const naming = violations.filter((v) => v.knownIssue && same(v.knownIssue, issue)).length;
    return { issue, of: someUnknown && naming > 0 ? ` of ${naming} of ${violations.length} violations` : '' };
  });
}

/**
 * "2 cores 94% busy (963 CPU-s, cri-conform 33 s): this work takes at least 8m 01s here (CPU floor)": what
 * the machine's CPUs did during the run, and the least wall time that allowed, whatever the schedule.
 */
export function describeCpu(cpu: MachineCpu): string {
  const cores = countOf(cpu.cores, 'core');
  return `${cores} ${cpu.busyPct}% busy (${cpu.busySeconds} CPU-s, cri-conform ${cpu.toolSeconds} s): this work takes at least ${formatMs(cpu.floorMs)} here (CPU floor)`;
}

/**
 * "taken 19.2 s of the 19.3 s from its first turn to its last (TEAR-14 9.9 s in 40 turns, TEAR-08 9.3 s in
 * 60)": how long the checks that hold NRI hooks in turn took the run's hook lane. Runtimes deliver hooks one
 * at a time, so the sum is a floor under those checks, and a sum near the span says the lane set it.
 */
export function describeHookLane(lane: HookLaneUse): string {
  const [first, ...rest] = lane.byCheck.map((c) => `${c.id} ${formatMs(c.takenMs)} in ${c.turns}`);
  const who = first === undefined ? '' : ` (${[`${first} turns`, ...rest].join(', ')})`;
  return `taken ${formatMs(lane.takenMs)} of the ${formatMs(lane.spanMs)} from its first turn to its last${who}`;
}

/**
 * A race check's trials and what its time was worth: "0 of 40 trials violated the contract, 4 at once;
 * floor 9.8 s side by side, 31.2 s serial" (the floors are its required waits, packed as the run ran the
 * trials and one after another: how near the check came to the least time its contract allows).
 */
export function describeTrials(r: CheckResult): string | undefined {
  if (!r.trials) return undefined;
  const { violated, run, atOnce } = r.trials;
  const together = atOnce !== undefined && atOnce > 1 ? `, ${atOnce} at once` : '';
  const floor = r.floorMs
    ? `; floor ${formatMs(r.floorMs.sideBySide)} side by side, ${formatMs(r.floorMs.serial)} serial`
    : '';
  return `${violated} of ${run} trials violated the contract${together}${floor}`;
}

/**
 * One timeline entry as one line: `#<seq> +<ms>ms`, then for CRI calls the method, ids, deadline, latency
 * and status; for NRI events the plugin, event, pod and container; for notes the text.
 */
export function formatTimelineEntry(e: TimelineEntry): string {
  const head = `#${e.seq} +${Math.round(e.atMs)}ms`;
  switch (e.kind) {
    case 'cri': {
      const deadline = e.deadlineMs === undefined ? 'deadline=none' : `deadline=${e.deadlineMs}ms`;
      const ids = e.ids ? ` ${e.ids}` : '';
      const msg = e.message ? `: ${e.message}` : '';
      return oneLine(
        `${head} cri ${e.method}${ids} ${deadline} latency=${Math.round(e.latencyMs)}ms ${e.code}${msg}`,
      );
    }
    case 'nri': {
      const ctr =
        e.containerId || e.containerName ? ` ctr=${e.containerName ?? ''}(${short(e.containerId)})` : '';
      const note = e.note ? ` [${e.note}]` : '';
      return oneLine(`${head} nri ${e.plugin} ${e.event} pod=${e.podName}(${short(e.podId)})${ctr}${note}`);
    }
    case 'note':
      return oneLine(`${head} note ${e.text}`);
  }
}

/** The last `max` timeline lines, preceded by a marker when earlier ones were left out. */
export function timelineTail(entries: readonly TimelineEntry[], max: number): string[] {
  const lines = entries.slice(-max).map(formatTimelineEntry);
  if (entries.length > max) lines.unshift(`... ${entries.length - max} earlier entries left out`);
  return lines;
}

function short(id: string | undefined): string {
  return (id ?? '').slice(0, 12);
}

function oneLine(s: string): string {
  return cleanText(s).replace(/[\r\n]+/g, ' ');
}
