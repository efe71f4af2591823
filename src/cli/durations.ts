/** Durations as users write them: "2s", "500ms", "5m", "1h"; a bare number means seconds (as crictl's timeout). */
import { UsageError } from './errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

export function parseDurationMs(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!m?.[1]) throw new UsageError(`${flag}: "${text}" is not a duration; use e.g. 500ms, 2s, 5m`);
  return Math.round(Number(m[1]) * (UNIT_MS[m[2] ?? 's'] ?? 1_000));
}

export function parseCount(text: string, flag: string, min: number): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < min) {
    throw new UsageError(`${flag}: "${text}" must be a whole number of at least ${min}`);
  }
  return Number(text);
}
