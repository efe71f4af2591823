/**
 * Which trial a piece of a check's work belongs to. The trials of a race check run side by side, so the
 * trial is carried by each trial's own async context (AsyncLocalStorage), never by a shared variable: a
 * call, note, assertion, plugin, injector claim or cleanup made inside a trial knows its trial, and what a
 * trial looks at (listings, NRI events, injector logs, the runtime's records) is narrowed to its own
 * objects, so no trial's evidence can be filled by another's. (Holds of NRI hooks are the exception to
 * running side by side: hook-lane.ts.)
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export class TrialScope {
  private readonly store = new AsyncLocalStorage<number>();

  /** The trial the caller runs in; undefined outside t.trials. */
  readonly current = (): number | undefined => this.store.getStore();

  /** Runs `work` as part of `trial`: everything it starts belongs to that trial. */
  run<T>(trial: number, work: () => T): T {
    return this.store.run(trial, work);
  }
}

/**
 * The start of every pod name of one trial of a check, and its injector claim key: `cc-idem-14t3-` for the
 * check's `cc-idem-14-`. The check's own key does not start it, so a claim of the check's never reaches a
 * trial's pods (the wrappers take the first claimed key a pod name starts with), and trial 3's does not
 * start trial 30's.
 */
export function trialNamePrefix(checkPrefix: string, trial: number): string {
  return `${checkPrefix.replace(/-$/, '')}t${trial}-`;
}
