/**
 * Console-only shortening: a retry loop's identical attempts collapse into one group, and no line runs
 * past CONSOLE_LINE_MAX. The JUnit and JSON reports keep the full text.
 */
import { stripAnsi } from './text.js';

export const CONSOLE_LINE_MAX = 300;
const CUT_NOTE = ' … (cut: full text in the JUnit/JSON reports)';
/** The head of one attempt as the harness writes it: `#3 UNKNOWN 12ms`, then optionally ` "message"`. */
const ATTEMPT = /#(\d+) ([A-Z_]+) (\d+)ms/g;
const MIN_GROUP = 3;

interface Attempt {
  n: number;
  code: string;
  ms: number;
  start: number;
  headEnd: number;
  /** Known when the next attempt follows after `; `: this one's message and where it ends. */
  linked?: { msg: string; end: number };
}

/** "#1 UNKNOWN 9ms "x"; #2 UNKNOWN 20ms "x"; ... #8 ..." -> "#1–#8 UNKNOWN ×8 (9–40ms) "x"". */
export function collapseRetries(text: string): string {
  const attempts: Attempt[] = [...text.matchAll(ATTEMPT)].map((m) => ({
    n: Number(m[1]),
    code: m[2] ?? '',
    ms: Number(m[3]),
    start: m.index,
    headEnd: m.index + m[0].length,
  }));
  for (const [i, a] of attempts.entries()) {
    const next = attempts[i + 1];
    if (!next) break;
    const between = /^(?: "([\s\S]*)")?; $/.exec(text.slice(a.headEnd, next.start));
    if (between) a.linked = { msg: between[1] ?? '', end: next.start - 2 };
  }
  let out = '';
  let copied = 0;
  for (let i = 0; i < attempts.length; ) {
    const first = attempts[i] as Attempt;
    let j = i;
    let end = first.linked?.end;
    while (first.linked && attempts[j]?.linked && j + 1 < attempts.length) {
      const msg = messageOf(text, attempts[j + 1] as Attempt, first.linked.msg);
      if (attempts[j + 1]?.code !== first.code || msg?.msg !== first.linked.msg) break;
      j += 1;
      end = msg.end;
    }
    const group = attempts.slice(i, j + 1);
    if (group.length >= MIN_GROUP && first.linked && end !== undefined) {
      const ms = group.map((a) => a.ms);
      const msg = first.linked.msg ? ` "${clipText(first.linked.msg, 120)}"` : '';
      out += `${text.slice(copied, first.start)}#${first.n}–#${group.at(-1)?.n} ${first.code} ×${group.length} (${Math.min(...ms)}–${Math.max(...ms)}ms)${msg}`;
      copied = end;
    }
    i = j + 1;
  }
  return out + text.slice(copied);
}

/** The message of an attempt that is last in its chain: the same text as the group's, if it is there. */
function messageOf(text: string, a: Attempt, expected: string): { msg: string; end: number } | undefined {
  if (a.linked) return a.linked;
  const quoted = ` "${expected}"`;
  if (expected && text.startsWith(quoted, a.headEnd))
    return { msg: expected, end: a.headEnd + quoted.length };
  if (!expected && !text.startsWith(' "', a.headEnd)) return { msg: '', end: a.headEnd };
  return undefined;
}

function clipText(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** A line longer than the cap loses its colors and its tail, and says where the full text is. */
export function capLine(line: string, max = CONSOLE_LINE_MAX): string {
  const plain = stripAnsi(line);
  if (plain.length <= max) return line;
  return `${plain.slice(0, max - CUT_NOTE.length)}${CUT_NOTE}`;
}

/**
 * A run's note for stderr (the final sweep's findings, warnings): no report holds it, so it is never cut;
 * a long line breaks after its "; " separators instead, and a piece longer than a line stays whole.
 */
export function wrapNote(text: string, max = CONSOLE_LINE_MAX): string {
  return text
    .split('\n')
    .flatMap((l) => wrapAtSeparators(l, max))
    .join('\n');
}

/**
 * Breaks a line longer than `max` after its "; " separators (the harness joins evidence with them), so a
 * long message reads as several lines instead of being cut. A piece still too long is left for capLine.
 */
export function wrapAtSeparators(line: string, max = CONSOLE_LINE_MAX): string[] {
  if (line.length <= max) return [line];
  const pieces = line.split(/(?<=; )/);
  const out: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current && current.length + piece.length > max) {
      out.push(current.trimEnd());
      current = '';
    }
    current += piece;
  }
  if (current) out.push(current.trimEnd());
  return out;
}
