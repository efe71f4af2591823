/**
 * Builds each trial's objects for t.trials(scenario, build): a trial's at its start, or ahead, while the
 * trial before it only waits, when that trial asks (TrialSetup.buildNext) and the next trial has not
 * started yet (trials side by side start as soon as a lane is free). Objects built for a trial carry its
 * number and name prefix (config-factory.ts), so they are that trial's from the start.
 */
import type { TrialSetup } from './context.js';

export class TrialBuilds<P> {
  private readonly ahead = new Map<number, Promise<P>>();

  /** `started`: the highest trial number started so far. */
  constructor(
    private readonly build: (trial: number) => Promise<P>,
    private readonly planned: number,
    private readonly note: (text: string) => void,
    private readonly started: () => number = () => 0,
  ) {}

  /** The setup handed to trial `trial`: what was built ahead for it, else what is built now. */
  async setupFor(trial: number): Promise<TrialSetup<P>> {
    const ahead = this.ahead.get(trial);
    this.ahead.delete(trial);
    const built = await (ahead ?? this.build(trial));
    return { built, buildNext: () => this.buildAfter(trial) };
  }

  private buildAfter(trial: number): void {
    const next = trial + 1;
    if (next > this.planned || next <= this.started() || this.ahead.has(next)) return;
    this.note(`building trial ${next}'s objects while trial ${trial} waits`);
    const built = this.build(next);
    // A trial that ends the trials leaves this unread; its objects go with the check's.
    built.catch(() => undefined);
    this.ahead.set(next, built);
  }
}
