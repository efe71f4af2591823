import type { Disturbance } from '../neighbours/disturbance.js';

/**
 * Scenario outcomes the checks of one run share. Several checks assert different contracts on one
 * expensive scenario (a plugin that hangs in four teardown hooks costs four plugin timeouts); the first
 * check that needs it runs it, and the others read what it recorded, waiting for it when they run beside
 * it. Only a scenario that completed is shared: one that threw is run again by the next check that needs it.
 */
export interface SharedOutcome {
  /** The check that ran the scenario (its timeline has the calls). */
  by: string;
  value: unknown;
  /** What another client did to the scenario's objects, as far as the check that ran it has seen yet. */
  disturbance?: () => Disturbance | undefined;
}

export class SharedOutcomes {
  private readonly outcomes = new Map<string, Promise<SharedOutcome>>();

  /** The scenario's outcome, and whether `by` ran it now (false: another check ran it, or is running it). */
  async obtain(
    key: string,
    by: string,
    produce: () => Promise<unknown>,
    disturbance?: () => Disturbance | undefined,
  ): Promise<SharedOutcome & { ranHere: boolean }> {
    for (;;) {
      const known = this.outcomes.get(key);
      if (known !== undefined) {
        const outcome = await known.catch(() => undefined);
        if (outcome) return { ...outcome, ranHere: false };
        // The other check's run threw: run it here.
        if (this.outcomes.get(key) === known) this.outcomes.delete(key);
        continue;
      }
      const running = produce().then((value) => ({ by, value, ...(disturbance ? { disturbance } : {}) }));
      this.outcomes.set(key, running);
      try {
        return { ...(await running), ranHere: true };
      } catch (e) {
        if (this.outcomes.get(key) === running) this.outcomes.delete(key);
        throw e;
      }
    }
  }
}
