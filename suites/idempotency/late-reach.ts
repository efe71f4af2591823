/**
 * First attempts on a node whose setup outlasts their deadline: how much later they give up once one
 * missed the delay it had to land in, and what becomes of the request such an attempt abandoned.
 */
import type { CheckContext } from '../../src/harness/face.js';
import { LearntLateness } from '../common/learnt-lateness.js';
import { FIRST_DEADLINE_MS, NRI_TIMEOUT_CLEARANCE_MS, nriHoldFor } from '../common/timing.js';

/**
 * The most a reach never seen is guessed late by. Past it, a node's setup is slower than a kubelet's own
 * deadlines allow for, and every later first attempt of the run would hold its build that much longer.
 */
const MAX_GUESSED_LATE_MS = 2_000;

/**
 * How much later first attempts give up, per call and delay, once one gave up before the runtime reached
 * the delay it had to land in (IDEM-16's sandbox was given up before its NRI hook). The attempt that missed
 * runs again (t.missed); the next ones, in any check of the run (keyed by its settings), give up that much
 * later (LearntLateness).
 */
export const lateReach = {
  byRun: new WeakMap<CheckContext['settings'], Map<string, LearntLateness>>(),
  of(t: CheckContext, key: string): number {
    return this.byRun.get(t.settings)?.get(key)?.ms ?? 0;
  },
  learn(t: CheckContext, key: string, usedLateMs: number, reachedAfterMs: number | undefined): void {
    this.at(t, key).missed(usedLateMs, reachedAfterMs);
  },
  landed(t: CheckContext, key: string, reachedAfterMs: number): void {
    this.at(t, key).reached(reachedAfterMs);
  },
  at(t: CheckContext, key: string): LearntLateness {
    const perDelay = this.byRun.get(t.settings) ?? new Map<string, LearntLateness>();
    this.byRun.set(t.settings, perDelay);
    const known = perDelay.get(key);
    if (known) return known;
    const learnt = new LearntLateness({ floorMs: FIRST_DEADLINE_MS, maxGuessedMs: MAX_GUESSED_LATE_MS });
    perDelay.set(key, learnt);
    return learnt;
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
