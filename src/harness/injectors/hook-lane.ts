/**
 * The hook lane: one hold of an NRI hook at a time. A runtime delivers NRI hooks one at a time across all
 * pods, so while a trial holds a hook every other hook waits behind it. A second hold would wait there
 * too, and its call's deadline would expire before its hook was reached: another scenario. So a hold enters
 * the lane alone (t.oneAtATime). A plugin registration takes the lane too (hooked): the runtime synchronizes
 * a new plugin under the same lock (containerd 2.x also holds back every new lifecycle call meanwhile), so
 * it must neither stall a held call on its way to its hook nor wait behind a hold. Other lifecycle calls go
 * on: their hooks are answered at once, so one queued in front of a held call delays it by milliseconds
 * (the checks still require that the held call reached its hook before its client gave up).
 *
 * One lane serves the whole run: the trials of a check, and the checks whose holds all take turns in it
 * (need 'holds-in-lane'), which may therefore share the runtime with each other. Who is who is a key: the
 * check, or "<check> trial <n>" (the registration gate's key).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type HookLaneUse, LaneUseTally } from '../check/lane-use.js';

export class HookLane {
  private readonly inLane = new AsyncLocalStorage<boolean>();
  /** Who is in the lane, if anyone. */
  private holder: string | undefined;
  /** Turns in the lane are taken by ticket: the last one handed out, and the last one that has ended. */
  private issued = 0;
  private served = 0;
  /** Calls that no hold may meet (registrations, t.noHeldHooks), in flight, by who made them. */
  private readonly calls = new Map<string, number>();
  /** Such calls still waiting, each with the last ticket handed out when it came: it goes before later turns. */
  private readonly callers = new Set<{ before: number }>();
  private wakeAll: (() => void)[] = [];
  private readonly tally = new LaneUseTally();

  /** Whether the caller runs inside the lane (its waits count toward the hook floor). */
  readonly laned = (): boolean => this.inLane.getStore() === true;

  /**
   * Runs `work` in the lane: after every turn asked for before it, once nobody else has a call in flight
   * that no hold may meet. `waiting` is told when `who` has to wait. The turn counts toward `check`'s use of
   * the lane (use()). Nested use runs at once.
   */
  async oneAtATime<T>(
    who: string,
    work: () => Promise<T>,
    waiting: () => void = () => {},
    check = who,
  ): Promise<T> {
    if (this.laned()) return work();
    const ticket = ++this.issued;
    const free = () =>
      this.holder === undefined &&
      this.served === ticket - 1 &&
      !this.othersCalling(who) &&
      ![...this.callers].some((c) => c.before < ticket);
    if (!free()) waiting();
    while (!free()) await this.nextChange();
    this.holder = who;
    const startMs = performance.now();
    try {
      return await this.inLane.run(true, work);
    } finally {
      this.tally.add(check, startMs, performance.now());
      this.holder = undefined;
      this.served = ticket;
      this.wake();
    }
  }

  /**
   * Runs a plugin registration, or a call no held hook may delay (t.noHeldHooks): once the turns asked for
   * before it have ended (at once for the holder's own calls); a turn asked for after it waits for it.
   * Turns and such calls alternate in the order they came, so neither starves the other.
   */
  async hooked<T>(who: string, send: () => Promise<T>): Promise<T> {
    if (this.holder !== who) {
      const caller = { before: this.issued };
      this.callers.add(caller);
      try {
        while (this.served < caller.before || this.holder !== undefined) await this.nextChange();
      } finally {
        this.callers.delete(caller);
      }
    }
    this.calls.set(who, (this.calls.get(who) ?? 0) + 1);
    try {
      return await send();
    } finally {
      const left = (this.calls.get(who) ?? 1) - 1;
      if (left === 0) this.calls.delete(who);
      else this.calls.set(who, left);
      this.wake();
    }
  }

  /** How long each check's turns took the lane, so far; undefined before the first turn. */
  use(): HookLaneUse | undefined {
    return this.tally.use();
  }

  private othersCalling(who: string): boolean {
    for (const [caller, n] of this.calls) if (caller !== who && n > 0) return true;
    return false;
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
