/**
 * Which trial a piece of a check's work belongs to. The trials of a race check run side by side, so the
 * trial is carried by each trial's own async context (AsyncLocalStorage), never by a shared variable: a
 * call, note, assertion, plugin, injector claim or cleanup made inside a trial knows its trial, and what a
 * trial looks at (listings, NRI events, injector logs, the runtime's records) is narrowed to its own
 * objects, so no trial's evidence can be filled by another's.
 *
 * The hook lane is the exception to running side by side. A runtime delivers NRI hooks one at a time
 * across all pods, so while one trial holds a hook (t.oneAtATime) every other hook waits: another trial's
 * hold, and any lifecycle call or plugin registration that needs the runtime's hooks. Those would queue in
 * front of the held trial's own call, whose deadline could then expire before its hook was reached: another
 * scenario. So a trial enters the lane alone, once no other trial has such a call in flight, and the other
 * trials' such calls wait until it leaves (their waits and polls go on meanwhile).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Whose work it is: a trial's number, or 0 for the check's own (outside trials). */
type Owner = number;

export class TrialScope {
  private readonly store = new AsyncLocalStorage<number>();
  private readonly inLane = new AsyncLocalStorage<boolean>();
  /** The trial in the lane, if any. */
  private holder: Owner | undefined;
  /** Trials waiting for the lane, in the order they asked. */
  private readonly queue: Owner[] = [];
  /** Calls that need the runtime's hooks, in flight, by owner. */
  private readonly calls = new Map<Owner, number>();
  private wakeAll: (() => void)[] = [];

  /** The trial the caller runs in; undefined outside t.trials. */
  readonly current = (): number | undefined => this.store.getStore();

  /** Whether the caller runs inside the lane (its waits count toward the hook floor). */
  readonly laned = (): boolean => this.inLane.getStore() === true;

  /** Runs `work` as part of `trial`: everything it starts belongs to that trial. */
  run<T>(trial: number, work: () => T): T {
    return this.store.run(trial, work);
  }

  /**
   * Runs `work` in the lane: once no other trial is in it or asked first, and no other trial has a call in
   * flight that needs the runtime's hooks. `waiting` is told when the caller has to wait. Nested use runs
   * at once (the caller already holds the lane).
   */
  async oneAtATime<T>(work: () => Promise<T>, waiting: () => void = () => {}): Promise<T> {
    if (this.laned()) return work();
    const me = this.owner();
    this.queue.push(me);
    try {
      if (!this.laneFree(me)) waiting();
      while (!this.laneFree(me)) await this.nextChange();
    } finally {
      this.queue.splice(this.queue.indexOf(me), 1);
    }
    this.holder = me;
    try {
      return await this.inLane.run(true, work);
    } finally {
      this.holder = undefined;
      this.wake();
    }
  }

  /**
   * Sends a call that needs the runtime's hooks (a lifecycle call, a plugin registration): at once, unless
   * another trial holds the lane or waits for it, in which case after it leaves.
   */
  async hooked<T>(send: () => Promise<T>): Promise<T> {
    const me = this.owner();
    while (this.othersInLane(me)) await this.nextChange();
    this.calls.set(me, (this.calls.get(me) ?? 0) + 1);
    try {
      return await send();
    } finally {
      const left = (this.calls.get(me) ?? 1) - 1;
      if (left === 0) this.calls.delete(me);
      else this.calls.set(me, left);
      this.wake();
    }
  }

  private owner(): Owner {
    return this.current() ?? 0;
  }

  private laneFree(me: Owner): boolean {
    if (this.holder !== undefined || this.queue[0] !== me) return false;
    for (const [owner, n] of this.calls) if (owner !== me && n > 0) return false;
    return true;
  }

  /** Another trial holds the lane or waits for it (a waiting one goes first, or it might never get in). */
  private othersInLane(me: Owner): boolean {
    if (this.holder !== undefined) return this.holder !== me;
    return this.queue.some((owner) => owner !== me);
  }

  private nextChange(): Promise<void> {
    return new Promise((resolve) => this.wakeAll.push(resolve));
  }

  private wake(): void {
    const waiting = this.wakeAll;
    this.wakeAll = [];
    for (const w of waiting) w();
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
