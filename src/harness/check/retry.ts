/**
 * The kubelet's way of retrying a timed-out sandbox or container request: the identical request again,
 * with exponential back-off, until it succeeds or the budget is spent. Every attempt is kept as evidence.
 */

import { sleep } from '../core/waits.js';
import type { CallResult, RetryAttempt, RetryOutcome, RetryPolicy } from './context.js';

type Attempt<T> = (deadlineMs: number) => Promise<CallResult<T>>;

/**
 * Where the retries stand: the deadline the next attempt gets, and the latest the window may be moved to
 * for an attempt given a longer one (RetryPolicy.growDeadlineToMs).
 */
interface Schedule {
  attemptDeadlineMs: number;
  /** Set once an attempt was cut off: later ones get attemptDeadlineMs in full, not what the window left. */
  cutOff: boolean;
  readonly latestEndAt: number;
}

/**
 * Retries within the policy's budget. Where the budget ran out while `stillSettling` says the runtime has
 * not yet settled the timed-out request (it lists nothing under its name: the build or its rollback is
 * still going), the retries go on for up to `policy.settleMs` more, as long as that stays so.
 */
export async function retryLikeKubelet<T>(
  attempt: Attempt<T>,
  policy: RetryPolicy,
  signal: AbortSignal,
  stillSettling?: () => Promise<boolean>,
): Promise<RetryOutcome<T>> {
  const settleMs = policy.settleMs ?? 0;
  const schedule: Schedule = {
    attemptDeadlineMs: policy.attemptDeadlineMs,
    cutOff: false,
    // Room for the attempts of a doubling up to growDeadlineToMs, which add up to less than twice that.
    latestEndAt: Date.now() + policy.budgetMs + settleMs + 2 * (policy.growDeadlineToMs ?? 0),
  };
  const grown = (outcome: RetryOutcome<T>): RetryOutcome<T> =>
    schedule.cutOff ? { ...outcome, grownDeadlineMs: schedule.attemptDeadlineMs } : outcome;
  const within = await retryFor(attempt, policy, schedule, Date.now() + policy.budgetMs, signal, 1);
  if (within.value !== undefined || settleMs <= 0 || !stillSettling || signal.aborted) return grown(within);
  if (!(await stillSettling())) return grown(within);
  const startedAt = performance.now();
  const next = within.attempts.length + 1;
  const past = await retryFor(attempt, policy, schedule, Date.now() + settleMs, signal, next, stillSettling);
  return grown({
    ...past,
    attempts: [...within.attempts, ...past.attempts],
    settlingMs: Math.round(performance.now() - startedAt),
  });
}

/**
 * Whether the client's own deadline ended the attempt while the runtime still worked on it: it took all
 * of that deadline, where a refusal comes at once. A runtime that holds a retry until its deadline (CRI-O)
 * looks the same, and answers the next one at once, so a longer next deadline costs nothing there.
 */
function cutOffByOwnDeadline(result: CallResult<unknown>, deadlineMs: number): boolean {
  return !result.ok && result.code === 'DEADLINE_EXCEEDED' && result.latencyMs >= 0.9 * deadlineMs;
}

async function retryFor<T>(
  attempt: Attempt<T>,
  policy: RetryPolicy,
  schedule: Schedule,
  windowEndAt: number,
  signal: AbortSignal,
  firstNumber: number,
  goOn?: () => Promise<boolean>,
): Promise<RetryOutcome<T>> {
  const attempts: RetryAttempt[] = [];
  let endAt = windowEndAt;
  let backoffMs = policy.backoffMs ?? 200;
  const maxBackoffMs = policy.maxBackoffMs ?? 2_000;
  const keep = policy.nextAttemptMs ?? 0;
  let grew = false;
  for (let n = firstNumber; !signal.aborted; n++) {
    // The build the cut-off attempt started now holds the name for the next one, as the timed-out one did:
    // a kubelet's call would have waited for it, so the next attempt gets longer, and the room for it.
    if (grew)
      endAt = Math.min(schedule.latestEndAt, Math.max(endAt, Date.now() + schedule.attemptDeadlineMs + keep));
    const left = endAt - Date.now();
    if (left <= 0) break;
    if (n > firstNumber && goOn && !(await goOn())) break;
    // After a cut-off the next attempt may be the one that gets the name once that build lets go of it: a
    // deadline cut short by the window would cut it off in turn (IDEM-14 on containerd 2.1.9 at load 25:
    // 463, 1456 and 1959 ms, each build holding the name for the next, the last one left behind whole).
    const ownMs = schedule.cutOff ? schedule.latestEndAt - Date.now() : left > 2 * keep ? left - keep : left;
    const deadlineMs = Math.min(schedule.attemptDeadlineMs, ownMs);
    const result = await attempt(deadlineMs);
    if (result.ok) {
      attempts.push({ attempt: n, code: 'OK', message: '', latencyMs: Math.round(result.latencyMs) });
      return { value: result.value, attempts };
    }
    attempts.push({
      attempt: n,
      code: result.code,
      message: result.message,
      latencyMs: Math.round(result.latencyMs),
    });
    const growTo = policy.growDeadlineToMs ?? 0;
    grew = cutOffByOwnDeadline(result, deadlineMs) && growTo > 0;
    schedule.cutOff ||= grew;
    if (grew)
      schedule.attemptDeadlineMs = Math.min(growTo, Math.max(schedule.attemptDeadlineMs, 2 * deadlineMs));
    else if (endAt - Date.now() <= backoffMs) break;
    // An aborted check ends the loop through the signal check above, not through an exception here.
    await sleep(backoffMs, signal).catch(() => undefined);
    backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
  }
  return { attempts };
}

/** One line per attempt, for failure messages. */
export function describeAttempts(attempts: readonly RetryAttempt[]): string {
  return attempts
    .map((a) => `#${a.attempt} ${a.code} ${a.latencyMs}ms${a.message ? ` "${a.message.slice(0, 160)}"` : ''}`)
    .join('; ');
}
