/** Durations as users write them: "2s", "500ms", "5m", "1h"; a bare number means seconds (as crictl's timeout). */
import { UsageError } from './errors.js';

const HOUR_MS = 3_600_000;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: HOUR_MS };

/** Node's timers wait at most 2^31-1 ms (24.8 days); a longer one fires at once, with a warning. */
const LONGEST_MS = 2 ** 31 - 1;
const LONGEST_HOURS = Math.floor(LONGEST_MS / HOUR_MS);
/** NRI's own request timeouts go below a second; the runtime's is what --nri-request-timeout stands in for. */
export const SHORTEST_NRI_REQUEST_MS = 100;

/**
 * The whole numbers each count flag takes. Upper bounds no useful run reaches: 1000 trials a path is hours
 * of pods, and a runtime takes tens of pods at once, not thousands (each trial side by side claims its
 * injector settings up front).
 */
export const COUNT_RANGES = {
  trials: [1, 1_000],
  'parallel-trials': [1, 100],
  parallel: [1, 100],
  'flake-attempts': [0, 10],
} as const;
export type CountFlag = keyof typeof COUNT_RANGES;

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
    throw new UsageError(
      `${flag}: "${text}" is longer than a timer can wait; give at most ${LONGEST_HOURS}h`,
    );
  return ms;
}

function describeMs(ms: number): string {
  return ms % 1_000 === 0 ? `${ms / 1_000}s` : `${ms}ms`;
}

/** A whole number within the range COUNT_RANGES gives `name`; `flag` says where it came from. */
export function parseCount(text: string, flag: string, name: CountFlag): number {
  const [min, max] = COUNT_RANGES[name];
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max) {
    throw new UsageError(`${flag}: "${text}" must be a whole number from ${min} to ${max}`);
  }
  return Number(text);
}

/** How flags that take a duration (D) or a count are written, for the help of run and doctor. */
export const VALUES_HELP = `
Durations: 500ms, 2s, 5m, 1h; a bare number is seconds. From 1s (${SHORTEST_NRI_REQUEST_MS}ms for --nri-request-timeout) to ${LONGEST_HOURS}h.
Counts: ${Object.entries(COUNT_RANGES)
  .map(([name, [min, max]]) => `--${name} ${min}-${max}`)
  .join(', ')}.
`;
