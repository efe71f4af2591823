/**
 * First attempts on a node whose setup outlasts their deadline: how much later they give up once one
 * missed the delay it had to land in, and what becomes of the request such an attempt abandoned.
 */
import type { CheckContext } from '../../src/harness/face.js';
import { FIRST_DEADLINE_MS, NRI_TIMEOUT_CLEARANCE_MS, nriHoldFor } from '../common/timing.js';

/**
 * The most a reach never seen is guessed late by. Past it, a node's setup is slower than a kubelet's own
 * deadlines allow for, and every later first attempt of the run would hold its build that much longer.
 */
const MAX_GUESSED_LATE_MS = 2_000;

/**
 * How much later first attempts give up, per call and delay, once one gave up before the runtime reached
 * the delay it had to land in (IDEM-14 on a loaded node, where the runtime's setup before the slow
 * handler took 640 ms against a 500 ms deadline, three attempts in a row; IDEM-16, whose sandbox was given
 * up before its NRI hook). The attempt that missed runs again (t.missed); the next ones, in any check of
 * the run (keyed by its settings), give up that much later and the delay holds that much longer, so the
 * timeout still lands in the delay, where the check's path needs it. Nothing changes where every attempt
 * reaches the delay in time.
 */
export const lateReach = {
  byRun: new WeakMap<CheckContext['settings'], Map<string, number>>(),
  of(t: CheckContext, key: string): number {
    return this.byRun.get(t.settings)?.get(key) ?? 0;
  },
  /**
   * An attempt given `usedLateMs` more missed the delay, which it reached `reachedAfterMs` after the send
   * (undefined: not by the reply). An unseen reach is guessed at twice the lateness that attempt had, so
   * that trials side by side which missed at the same lateness double it once, not once each (four of
   * IDEM-14's trials had taken it to 4 s in two rounds on a loaded two-core VM), and never
   * past MAX_GUESSED_LATE_MS. A reach seen is learnt as it was, however late.
   */
  learn(t: CheckContext, key: string, usedLateMs: number, reachedAfterMs: number | undefined): void {
    const next =
      reachedAfterMs === undefined
        ? Math.min(Math.max(2 * usedLateMs, FIRST_DEADLINE_MS), MAX_GUESSED_LATE_MS)
        : Math.ceil(reachedAfterMs);
    this.set(t, key, Math.max(this.of(t, key), next));
  },
  /**
   * An attempt reached the delay in time, `reachedAfterMs` after the send: a node that is clearly faster
   * again (it reached the delay in under half the lateness learnt) gives its first attempts back the
   * deadline they need now, not the one its worst moment needed. Reaches vary by more than that margin
   * from one attempt to the next on a loaded node: lowered to every landed reach, the lateness made the
   * next attempts miss again (IDEM-14 on a two-core VM, where reaches went from 0.9 to 2.4 s).
   */
  landed(t: CheckContext, key: string, reachedAfterMs: number): void {
    const known = this.of(t, key);
    if (reachedAfterMs < known / 2) this.set(t, key, Math.ceil(reachedAfterMs));
  },
  set(t: CheckContext, key: string, ms: number): void {
    const perDelay = this.byRun.get(t.settings) ?? new Map<string, number>();
    perDelay.set(key, ms);
    this.byRun.set(t.settings, perDelay);
  },
};

/**
 * The lateness a first attempt on `delay` is given. A hold of an NRI hook must end
 * NRI_TIMEOUT_CLEARANCE_MS before the runtime's plugin request timeout would end it (nriHoldMs), so a
 * deadline's lateness there is capped to what that leaves; a cancel's, which only says how long to wait
 * for the hook, is not.
 */
export function lateFor(
  t: CheckContext,
  key: string,
  delay: { watchReach?: unknown; holdEnded?: unknown },
  ending: 'deadline' | 'cancel',
): number {
  if (!delay.watchReach && !delay.holdEnded) return 0;
  const learnt = lateReach.of(t, key);
  if (!delay.holdEnded || ending === 'cancel') return learnt;
  const room = t.settings.nriRequestTimeoutMs - NRI_TIMEOUT_CLEARANCE_MS - nriHoldFor('deadline');
  return Math.max(0, Math.min(learnt, room));
}

/**
 * Sends the request a missed attempt abandoned again, kubelet-like (`resend`), until the runtime answers
 * it: what it built for the request is then listed, and the rerun's clean start removes it. A runtime may
 * hold an abandoned build for an identical retry (CRI-O's cache) where no list shows it, and the rerun's
 * host check would take what that build left on the host for a leak of the rerun's own attempt.
 */
export async function claimAbandoned(
  t: CheckContext,
  what: string,
  resend: () => Promise<unknown>,
): Promise<void> {
  t.step(`${what} again, so that what the runtime built for the missed attempt is listed and cleaned up`);
  await resend();
}
