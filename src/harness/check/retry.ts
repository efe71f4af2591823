/**
 * The kubelet's way of retrying a timed-out sandbox or container request: the identical request again,
 * with exponential back-off, until it succeeds or the budget is spent. Every attempt is kept as evidence.
 */

import { sleep } from '../core/waits.js';
import type { CallResult, RetryAttempt, RetryOutcome, RetryPolicy } from './context.js';

export async function retryLikeKubelet<T>(
  attempt: (deadlineMs: number) => Promise<CallResult<T>>,
  policy: RetryPolicy,
  signal: AbortSignal,
): Promise<RetryOutcome<T>> {
  const attempts: RetryAttempt[] = [];
  const endAt = Date.now() + policy.budgetMs;
  let backoffMs = policy.backoffMs ?? 200;
  const maxBackoffMs = policy.maxBackoffMs ?? 2_000;
  for (let n = 1; !signal.aborted; n++) {
    const left = endAt - Date.now();
    if (left <= 0) break;
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
