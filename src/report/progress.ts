/**
 * Progress of a run on the console: the live line a terminal shows ("[12/50] TEAR-04 3.4 s"), the plain
 * line a log gets when a check starts, and the ordering that prints finished checks in catalogue order even
 * when they ran in parallel. Pure pieces; the console reporter owns the clock and the terminal.
 */

export interface RunningCheck {
  id: string;
  /** 1-based place in the run's catalogue order. */
  position: number;
  startedAtMs: number;
  /** A race check's trials so far: how many ended, of how many. */
  trials?: { done: number; planned: number };
}

/** Wide enough for three running checks; never wraps an 80-column terminal's line much past one row. */
export const LIVE_LINE_MAX = 100;

/**
 * "[12/50] TEAR-04 3.4 s" for one check, "[12/50] TEAR-04 3.4 s · TEAR-05 0.2 s" for several, with a race
 * check's trials: "[42/53] IDEM-15 4m 12s 23/40 trials".
 */
export function renderLiveLine(running: readonly RunningCheck[], total: number, nowMs: number): string {
  if (running.length === 0) return '';
  const sorted = [...running].sort((a, b) => a.position - b.position);
  const last = sorted.at(-1) as RunningCheck;
  const parts = sorted.map((c) => {
    const trials = c.trials ? ` ${c.trials.done}/${c.trials.planned} trials` : '';
    return `${c.id} ${elapsed(nowMs - c.startedAtMs)}${trials}`;
  });
  const line = `[${last.position}/${total}] ${parts.join(' · ')}`;
  return line.length <= LIVE_LINE_MAX ? line : `${line.slice(0, LIVE_LINE_MAX - 1)}…`;
}

/** The line a log (no terminal) gets when a check starts. */
export function renderStartLine(position: number, total: number, title: string): string {
  return `[${position}/${total}] start ${title}`;
}

function elapsed(ms: number): string {
  const s = Math.max(0, ms) / 1_000;
  return s < 60
    ? `${s.toFixed(1)} s`
    : `${Math.floor(s / 60)}m ${String(Math.floor(s % 60)).padStart(2, '0')}s`;
}

/**
 * Hands back finished items in the order they started: an item that finishes early waits until every item
 * started before it has finished. Checks start in catalogue order, so results print in catalogue order.
 */
export class StartOrder<T> {
  private next = 1;
  private started = 0;
  private readonly done = new Map<number, T>();
  private readonly positions = new Map<string, number>();

  /** Records a start; returns its 1-based position. */
  start(key: string): number {
    this.started += 1;
    this.positions.set(key, this.started);
    return this.started;
  }

  positionOf(key: string): number | undefined {
    return this.positions.get(key);
  }

  /** Records a finish; returns the items that can be printed now, in start order. */
  finish(key: string, item: T): T[] {
    const pos = this.positions.get(key);
    if (pos === undefined) return [item];
    this.done.set(pos, item);
    const ready: T[] = [];
    for (let v = this.done.get(this.next); v !== undefined; v = this.done.get(this.next)) {
      ready.push(v);
      this.done.delete(this.next);
      this.next += 1;
    }
    return ready;
  }

  /** Whatever is still held (the run ended early): in start order. */
  flush(): T[] {
    const rest = [...this.done.entries()].sort(([a], [b]) => a - b).map(([, v]) => v);
    this.done.clear();
    return rest;
  }
}
