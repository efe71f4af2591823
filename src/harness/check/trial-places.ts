/**
 * The places of a check's trials side by side (--parallel-trials): a trial holds one while it works. A
 * trial that only waits out a reaping grace (the runtime has that long to reap what the trial left, and the
 * trial does nothing but look again now and then) rests: it gives its place to the next trial meanwhile,
 * and takes one back, before any trial that has not started, once the grace is over. So no more trials work
 * at once than the setting allows, which is the load it was chosen at, while the graces of trials that
 * found something left overlap. At most twice as many trials are under way as there are places.
 */
export class TrialPlaces {
  private working = 0;
  /** Trials waiting for a place: those back from a rest go first. */
  private readonly returning: (() => void)[] = [];
  private readonly starting: (() => void)[] = [];
  private readonly resting = new Set<number>();

  constructor(readonly size: number) {}

  /** How many trials may be under way at once, working or resting. */
  get underWayAtMost(): number {
    return underWayAtMost(this.size);
  }

  /** Takes a place for a trial about to start, once one is free. */
  enter(): Promise<void> {
    return this.take(this.starting);
  }

  /** Gives a place back: to a trial back from its rest, else to the next one to start. */
  leave(): void {
    const next = this.returning.shift() ?? this.starting.shift();
    if (next) next();
    else this.working--;
  }

  /**
   * Runs `wait` with `trial`'s place given up, and resolves once the trial has one again. A trial already
   * resting (two looks at once) waits without giving up another.
   */
  async rest<T>(trial: number, wait: () => Promise<T>): Promise<T> {
    if (this.resting.has(trial)) return wait();
    this.resting.add(trial);
    this.leave();
    try {
      return await wait();
    } finally {
      this.resting.delete(trial);
      await this.take(this.returning);
    }
  }

  private take(queue: (() => void)[]): Promise<void> {
    const ahead =
      queue === this.starting ? this.returning.length + this.starting.length : this.returning.length;
    if (this.working < this.size && ahead === 0) {
      this.working++;
      return Promise.resolve();
    }
    return new Promise((resolve) => queue.push(resolve));
  }
}

/** How many trials may be under way at once with `size` places: those working, and as many resting. */
export function underWayAtMost(size: number): number {
  return 2 * size;
}
