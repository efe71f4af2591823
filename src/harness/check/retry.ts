/**
 * The kubelet's way of retrying a timed-out sandbox or container request: the identical request again,
 * with exponential back-off, until it succeeds or the budget is spent. Every attempt is kept as evidence.
 */

import { sleep } from '../core/waits.js';
import type { CallResult, RetryAttempt, RetryOutcome, RetryPolicy } from './context.js';

type Attempt<T> = (deadlineMs: number) => Promise<CallResult<T>>;

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
  const within = await retryFor(attempt, policy, policy.budgetMs, signal, 1);
  const settleMs = policy.settleMs ?? 0;
  if (within.value !== undefined || settleMs <= 0 || !stillSettling || signal.aborted) return within;
  if (!(await stillSettling())) return within;
  const startedAt = performance.now();
  const past = await retryFor(attempt, policy, settleMs, signal, within.attempts.length + 1, stillSettling);
  return {
    ...past,
    attempts: [...within.attempts, ...past.attempts],
    settlingMs: Math.round(performance.now() - startedAt),
  };
}

async function retryFor<T>(
  attempt: Attempt<T>,
  policy: RetryPolicy,
  budgetMs: number,
  signal: AbortSignal,
  firstNumber: number,
  goOn?: () => Promise<boolean>,
): Promise<RetryOutcome<T>> {
  const attempts: RetryAttempt[] = [];
  const endAt = Date.now() + budgetMs;
  let backoffMs = policy.backoffMs ?? 200;
  const maxBackoffMs = policy.maxBackoffMs ?? 2_000;
  for (let n = firstNumber; !signal.aborted; n++) {
    const left = endAt - Date.now();
    if (left <= 0) break;
    if (n > firstNumber && goOn && !(await goOn())) break;
    const keep = policy.nextAttemptMs ?? 0;
    const ownMs = left > 2 * keep ? left - keep : left;
    const result = await attempt(Math.min(policy.attemptDeadlineMs, ownMs));
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
    if (endAt - Date.now() <= backoffMs) break;
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
