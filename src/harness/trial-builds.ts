/**
 * Builds each trial's objects for t.trials(scenario, build): the first trial's at its start, a later one's
 * ahead, while the trial before it only waits, when that trial asks (TrialSetup.buildNext). Objects built
 * for a trial carry its number (config-factory.ts), so cleanup between earlier trials spares them.
 */
import type { TrialSetup } from './context.js';

export class TrialBuilds<P> {
  private ahead: { trial: number; built: Promise<P> } | undefined;

  constructor(
    private readonly build: (trial: number) => Promise<P>,
    private readonly planned: number,
    private readonly note: (text: string) => void,
  ) {}

  /** The setup handed to trial `trial`: what was built ahead for it, else what is built now. */
  async setupFor(trial: number): Promise<TrialSetup<P>> {
    const ahead = this.ahead?.trial === trial ? this.ahead.built : undefined;
    this.ahead = undefined;
    const built = await (ahead ?? this.build(trial));
    return { built, buildNext: () => this.buildAfter(trial) };
  }

  private buildAfter(trial: number): void {
    if (trial >= this.planned || this.ahead !== undefined) return;
    this.note(`building trial ${trial + 1}'s objects while trial ${trial} waits`);
    const built = this.build(trial + 1);
    // A trial that ends the trials leaves this unread; its objects go with the check's.
    built.catch(() => undefined);
    this.ahead = { trial: trial + 1, built };
  }
}
