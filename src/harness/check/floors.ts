/**
 * The least wall time a check's required waits allow (CheckResult.floorMs), which the report and the
 * benchmark set beside its wall time. Serial: every wait one after another (requiredWaitMs). Side by side:
 * the waits outside the trials, plus the trials as the run ran them, trial n taking the first free of
 * `atOnce` lanes (in trial order, as the trials start), each trial as long as its own waits but those it
 * waited out resting (which need no place: trial-places.ts); and as long as all its waits in twice as many
 * lanes (no more trials are under way at once); but never less than the waits spent in the one-at-a-time
 * lane, which no two trials share.
 */
import type { Timeline } from './timeline.js';
import { underWayAtMost } from './trial-places.js';

export interface FloorInput {
  /** Every required wait (outside and inside trials). */
  totalMs: number;
  /** Each trial's own required waits. */
  byTrial: ReadonlyMap<number, number>;
  /** Of those, what each trial waited out resting. */
  restingByTrial?: ReadonlyMap<number, number>;
  /** Required waits made inside the one-at-a-time lane. */
  lanedMs: number;
  /** How many trials ran side by side at most. */
  atOnce: number;
}

export function floorsOf(input: FloorInput): { sideBySide: number; serial: number } {
  const inOrder = [...input.byTrial].sort(([a], [b]) => a - b);
  const trialWaits = inOrder.map(([, ms]) => ms);
  const placedWaits = inOrder.map(([trial, ms]) => ms - (input.restingByTrial?.get(trial) ?? 0));
  const inTrials = trialWaits.reduce((sum, ms) => sum + ms, 0);
  const outside = Math.max(0, input.totalMs - inTrials);
  const trialsFloor = Math.max(
    packedMs(placedWaits, input.atOnce),
    packedMs(trialWaits, underWayAtMost(input.atOnce)),
    input.lanedMs,
  );
  return { sideBySide: Math.round(outside + trialsFloor), serial: Math.round(input.totalMs) };
}

/** How long `waits`, taken in order, last in `lanes` lanes that each take the next wait once free. */
export function packedMs(waits: readonly number[], lanes: number): number {
  const free = new Array<number>(Math.max(1, lanes)).fill(0);
  for (const ms of waits) {
    const next = free.indexOf(Math.min(...free));
    free[next] = (free[next] ?? 0) + ms;
  }
  return Math.max(...free);
}

/** The floors of a check from its timeline's required waits. */
export function floorsOfTimeline(timeline: Timeline, atOnce: number): { sideBySide: number; serial: number } {
  return floorsOf({
    totalMs: timeline.requiredWaitMs,
    byTrial: timeline.requiredByTrial,
    restingByTrial: timeline.restingByTrial,
    lanedMs: timeline.lanedRequiredMs,
    atOnce,
  });
}
