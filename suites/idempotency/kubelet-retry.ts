/** How the checks retry a timed-out request, as a kubelet's next pod syncs would. */
import type { CheckContext, RetryPolicy } from '../../src/harness/face.js';
import { CONVERGE_WITHIN_MS, RETRY_GROWS_TO_MS, SETTLE_WITHIN_MS } from '../common/timing.js';

/**
 * What a retry leaves of the budget for the next one: its back-off and a quick answer. A runtime may hold
 * a retry that finds the timed-out build still going until the retry's own deadline and hand the build to
 * the next retry (CRI-O's getResourceOrWait: "will be provided to the kubelet on next retry"); a kubelet's
 * next sync sends it. A retry given the whole budget left no next one, and CRI-O failed IDEM-01/02/03/12/14
 * for the tool's schedule, not for the runtime's.
 */
const NEXT_RETRY_MS = 750;

/**
 * Kubelet-like retries: the identical request, back-off from 100 ms, converging within the bound plus the
 * margin. A retry may take all of that but the next retry's share: a runtime may hold it until the timed-out
 * build ends, or it may wait behind a hold in the hook lane or a busy node. A kubelet gives each call
 * minutes; a retry of the check's own cut off at 2 s, as it was, was abandoned in turn and made a second
 * timed-out build, the check's doing, not the runtime's (seen on a loaded node, and in the self-test).
 * Retries that find nothing listed under the name when the budget ends go on while that stays so
 * (SETTLE_WITHIN_MS): the runtime is still settling the timed-out build, and nothing is decided yet. A
 * retry cut off by its own deadline all the same gives the next ones longer (RETRY_GROWS_TO_MS).
 */
export function kubeletRetry(t: CheckContext): RetryPolicy {
  const budgetMs = CONVERGE_WITHIN_MS + t.settings.marginMs;
  return {
    attemptDeadlineMs: budgetMs,
    budgetMs,
    nextAttemptMs: NEXT_RETRY_MS,
    backoffMs: 100,
    maxBackoffMs: 800,
    settleMs: SETTLE_WITHIN_MS,
    growDeadlineToMs: RETRY_GROWS_TO_MS,
  };
}
