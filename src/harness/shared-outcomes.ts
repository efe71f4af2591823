/**
 * Scenario outcomes the checks of one run share. Several checks assert different contracts on one
 * expensive scenario (a plugin that hangs in four teardown hooks costs four plugin timeouts); the first
 * check that needs it runs it, and the later ones read what it recorded. Only a scenario that completed
 * is shared: one that threw is run again by the next check that needs it.
 */
export interface SharedOutcome {
  /** The check that ran the scenario (its timeline has the calls). */
  by: string;
  value: unknown;
}

export class SharedOutcomes {
  private readonly done = new Map<string, SharedOutcome>();

  get(key: string): SharedOutcome | undefined {
    return this.done.get(key);
  }

  set(key: string, by: string, value: unknown): void {
    this.done.set(key, { by, value });
  }
}
