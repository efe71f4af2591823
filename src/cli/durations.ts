/** Durations as users write them: "2s", "500ms", "5m", "1h"; a bare number means seconds (as crictl's timeout). */
import { UsageError } from './errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** Node's timers wait at most 2^31-1 ms (24.8 days); a longer one fires at once, with a warning. */
const LONGEST_MS = 2 ** 31 - 1;

/**
 * A duration of at least `minMs`: no CRI call, check or restart can be done in less than a second, and a
 * zero would end each one before it began.
 */
export function parseDurationMs(text: string, flag: string, minMs = 1_000): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m?.[1]) throw new UsageError(`${flag}: "${text}" is not a duration; use e.g. 500ms, 2s, 5m`);
  const ms = Math.round(Number(m[1]) * (UNIT_MS[m[2] ?? 's'] ?? 1_000));
  if (ms < minMs) throw new UsageError(`${flag}: "${text}" is too short; give at least ${describeMs(minMs)}`);
  if (ms > LONGEST_MS)
    throw new UsageError(`${flag}: "${text}" is longer than a timer can wait; give at most 596h`);
  return ms;
}

function describeMs(ms: number): string {
  return ms % 1_000 === 0 ? `${ms / 1_000}s` : `${ms}ms`;
}

/** Whole numbers a flag takes: none below `min`, none above `max`, which no run could get through. */
export function parseCount(text: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${flag}: "${text}" must be a whole number from ${min} to ${max}`);
  }
  return Number(text);
}
