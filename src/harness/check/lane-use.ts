/**
 * How long the run's hook lane was taken, and by which checks (RunOutcome.hookLane). A runtime delivers
 * NRI hooks one at a time, so the lane's turns never overlap: their sum is a floor under the checks that
 * hold hooks in it, which no schedule of those checks can go below. A sum close to the span, from the
 * first turn to the end of the last, says the lane, not the CPUs or the checks' waits, set that stretch.
 */
export interface HookLaneUse {
  turns: number;
  /** The turns' durations, summed. */
  takenMs: number;
  /** From the start of the first turn to the end of the last. */
  spanMs: number;
  /** The checks that took turns, most time first. */
  byCheck: { id: string; turns: number; takenMs: number }[];
}

export class LaneUseTally {
  private readonly byCheck = new Map<string, { turns: number; takenMs: number }>();
  private firstStart = Number.POSITIVE_INFINITY;
  private lastEnd = Number.NEGATIVE_INFINITY;

  /** One turn of `check`, from `startMs` to `endMs` on one clock (performance.now). */
  add(check: string, startMs: number, endMs: number): void {
    const entry = this.byCheck.get(check) ?? { turns: 0, takenMs: 0 };
    entry.turns += 1;
    entry.takenMs += endMs - startMs;
    this.byCheck.set(check, entry);
    this.firstStart = Math.min(this.firstStart, startMs);
    this.lastEnd = Math.max(this.lastEnd, endMs);
  }

  /** Undefined when no check took a turn. */
  use(): HookLaneUse | undefined {
    if (this.byCheck.size === 0) return undefined;
    const byCheck = [...this.byCheck]
      .map(([id, e]) => ({ id, turns: e.turns, takenMs: Math.round(e.takenMs) }))
      .sort((a, b) => b.takenMs - a.takenMs || a.id.localeCompare(b.id));
    const takenMs = [...this.byCheck.values()].reduce((n, e) => n + e.takenMs, 0);
    return {
      turns: byCheck.reduce((n, c) => n + c.turns, 0),
      takenMs: Math.round(takenMs),
      spanMs: Math.round(this.lastEnd - this.firstStart),
      byCheck,
    };
  }
}
