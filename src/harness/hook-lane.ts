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

export class HookLane {
  private readonly inLane = new AsyncLocalStorage<boolean>();
  /** Who is in the lane, if anyone. */
  private holder: string | undefined;
  /** Who waits for the lane, in the order they asked. */
  private readonly queue: string[] = [];
  /** Calls that need the runtime's hooks, in flight, by who made them. */
  private readonly calls = new Map<string, number>();
  private wakeAll: (() => void)[] = [];

  /** Whether the caller runs inside the lane (its waits count toward the hook floor). */
  readonly laned = (): boolean => this.inLane.getStore() === true;

  /**
   * Runs `work` in the lane: once nobody else is in it or asked first, and nobody else has a call in flight
   * that needs the runtime's hooks. `waiting` is told when `who` has to wait. Nested use runs at once.
   */
  async oneAtATime<T>(who: string, work: () => Promise<T>, waiting: () => void = () => {}): Promise<T> {
    if (this.laned()) return work();
    this.queue.push(who);
    try {
      if (!this.free(who)) waiting();
      while (!this.free(who)) await this.nextChange();
    } finally {
      this.queue.splice(this.queue.indexOf(who), 1);
    }
    this.holder = who;
    try {
      return await this.inLane.run(true, work);
    } finally {
      this.holder = undefined;
      this.wake();
    }
  }

  /**
   * Runs a plugin registration (or anything else that takes the runtime's hook lock for a while): at once,
   * unless someone else holds the lane or waits for it, in which case after they leave.
   */
  async hooked<T>(who: string, send: () => Promise<T>): Promise<T> {
    while (this.othersFirst(who)) await this.nextChange();
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

  private free(who: string): boolean {
    if (this.holder !== undefined || this.queue[0] !== who) return false;
    for (const [caller, n] of this.calls) if (caller !== who && n > 0) return false;
    return true;
  }

  /** Someone else holds the lane or waits for it (a waiting one goes first, or it might never get in). */
  private othersFirst(who: string): boolean {
    if (this.holder !== undefined) return this.holder !== who;
    return this.queue.some((q) => q !== who);
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
