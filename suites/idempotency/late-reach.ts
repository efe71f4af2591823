/**
 * First attempts on a node whose setup outlasts their deadline: how much later they give up once one
 * missed the delay it had to land in, and what becomes of the request such an attempt abandoned.
 */
import type { CallOpts, CallResult, CheckContext, RetryPolicy } from '../../src/harness/face.js';
import { FIRST_DEADLINE_MS, nriHoldFor } from '../common/timing.js';

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
  /** The delay was reached `reachedAfterMs` after the send (undefined: not by the reply). */
  learn(t: CheckContext, key: string, reachedAfterMs: number | undefined): void {
    const known = this.of(t, key);
    const next =
      reachedAfterMs === undefined ? Math.max(2 * known, FIRST_DEADLINE_MS) : Math.ceil(reachedAfterMs);
    const perDelay = this.byRun.get(t.settings) ?? new Map<string, number>();
    perDelay.set(key, Math.max(known, next));
    this.byRun.set(t.settings, perDelay);
  },
};

/**
 * The lateness a first attempt on `delay` is given. A hold of an NRI hook must end 500 ms before the
 * runtime's plugin request timeout would end it (nriHoldMs), so a deadline's lateness there is capped to
 * what that leaves; a cancel's, which only says how long to wait for the hook, is not.
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
  const room = t.settings.nriRequestTimeoutMs - 500 - nriHoldFor('deadline');
  return Math.max(0, Math.min(learnt, room));
}

/**
 * Sends the request a missed attempt abandoned again, kubelet-like, until the runtime answers it: what it
 * built for the request is then listed, and the rerun's clean start removes it. A runtime may hold an
 * abandoned build for an identical retry (CRI-O's cache) where no list shows it, and the rerun's host
 * check would take what that build left on the host for a leak of the rerun's own attempt.
 */
export async function claimAbandoned<T>(
  t: CheckContext,
  what: string,
  send: (opts: CallOpts) => Promise<CallResult<T>>,
  policy: RetryPolicy,
): Promise<void> {
  const endAt = performance.now() + policy.budgetMs;
  let backoffMs = policy.backoffMs ?? 100;
  t.step(`${what} again, so that what the runtime built for the missed attempt is listed and cleaned up`);
  while (performance.now() < endAt) {
    if ((await send({ deadlineMs: policy.attemptDeadlineMs })).ok) return;
    await t.pause(backoffMs, 'kubelet-like back-off before the abandoned request is sent again');
    backoffMs = Math.min(2 * backoffMs, policy.maxBackoffMs ?? backoffMs);
  }
}
