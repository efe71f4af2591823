import { expect } from 'chai';
import type { CallResult } from './context.js';
import { describeAttempts, retryLikeKubelet } from './retry.js';

const failed = (message: string): CallResult<string> => ({
  ok: false,
  code: 'UNKNOWN',
  codeNumber: 2,
  message,
  latencyMs: 1,
});

describe('kubelet-like retries', () => {
  it('sends the request again until it succeeds, keeping every attempt as evidence', async () => {
    const deadlines: number[] = [];
    let n = 0;
    const outcome = await retryLikeKubelet(
      async (deadlineMs) => {
        deadlines.push(deadlineMs);
        return ++n < 3 ? failed('name is reserved') : { ok: true, value: 'pod-1', latencyMs: 1 };
      },
      { attemptDeadlineMs: 500, budgetMs: 5_000, backoffMs: 1, maxBackoffMs: 2 },
      new AbortController().signal,
    );
    expect(outcome.value).to.equal('pod-1');
    expect(outcome.attempts.map((a) => a.code)).to.deep.equal(['UNKNOWN', 'UNKNOWN', 'OK']);
    expect(deadlines.every((d) => d <= 500)).to.equal(true);
    expect(describeAttempts(outcome.attempts)).to.match(/^#1 UNKNOWN 1ms "name is reserved"; #2/);
  });

  it('keeps back time for one more attempt, so a runtime that holds a retry to its deadline still converges', async () => {
    const deadlines: number[] = [];
    // As CRI-O: the first retry is held until its deadline and fails; the next one gets the build at once.
    const outcome = await retryLikeKubelet(
      async (deadlineMs) => {
        deadlines.push(deadlineMs);
        if (deadlines.length > 1) return { ok: true, value: 'pod-1', latencyMs: 1 };
        await new Promise((resolve) => setTimeout(resolve, deadlineMs));
        return { ...failed('ready on the next retry'), code: 'DEADLINE_EXCEEDED', codeNumber: 4 };
      },
      { attemptDeadlineMs: 400, budgetMs: 400, nextAttemptMs: 100, backoffMs: 1 },
      new AbortController().signal,
    );
    expect(outcome.value).to.equal('pod-1');
    expect(deadlines[0]).to.be.at.most(300);
    // The last attempt takes all that is left: there is no room for another.
    expect(deadlines[1]).to.be.within(1, 100);
  });

  it('gives the next attempt longer, and the room for it, once one was cut off by its own deadline', async () => {
    const deadlines: number[] = [];
    // A loaded runtime: each build takes 120 ms, and a build cut off holds the name until it ends.
    const outcome = await retryLikeKubelet(
      async (deadlineMs) => {
        deadlines.push(deadlineMs);
        if (deadlineMs >= 120) return { ok: true, value: 'pod-1', latencyMs: 120 };
        await new Promise((resolve) => setTimeout(resolve, deadlineMs));
        return { ...failed('Deadline exceeded'), code: 'DEADLINE_EXCEEDED', latencyMs: deadlineMs };
      },
      { attemptDeadlineMs: 50, budgetMs: 60, backoffMs: 1, maxBackoffMs: 1, growDeadlineToMs: 150 },
      new AbortController().signal,
    );
    expect(outcome.value).to.equal('pod-1');
    expect(deadlines).to.deep.equal([50, 100, 150]);
    expect(outcome.grownDeadlineMs).to.equal(150);
  });

  it('gives every attempt after a cut-off its whole deadline, however little of the window is left', async () => {
    const deadlines: number[] = [];
    // The cut-off build holds the name for three refusals; the attempt that then gets it needs 80 ms.
    const outcome = await retryLikeKubelet(
      async (deadlineMs) => {
        deadlines.push(deadlineMs);
        const n = deadlines.length;
        if (n > 1 && n < 5) return failed('name is reserved');
        if (n === 5 && deadlineMs >= 80) return { ok: true, value: 'pod-1', latencyMs: 80 };
        await new Promise((resolve) => setTimeout(resolve, deadlineMs));
        return { ...failed('Deadline exceeded'), code: 'DEADLINE_EXCEEDED', latencyMs: deadlineMs };
      },
      { attemptDeadlineMs: 50, budgetMs: 60, backoffMs: 20, maxBackoffMs: 20, growDeadlineToMs: 100 },
      new AbortController().signal,
    );
    expect(outcome.value, deadlines.join(', ')).to.equal('pod-1');
    expect(deadlines[4]).to.equal(100);
  });

  it('does not grow past the refusals a runtime answers at once', async () => {
    const deadlines: number[] = [];
    const outcome = await retryLikeKubelet(
      async (deadlineMs) => {
        deadlines.push(deadlineMs);
        return failed('name is reserved');
      },
      { attemptDeadlineMs: 10, budgetMs: 40, backoffMs: 5, maxBackoffMs: 5, growDeadlineToMs: 1_000 },
      new AbortController().signal,
    );
    expect(outcome.grownDeadlineMs).to.equal(undefined);
    expect(Math.max(...deadlines)).to.be.at.most(10);
  });

  it('gives up when the budget is spent, with no value', async () => {
    const outcome = await retryLikeKubelet(
      async () => failed('still reserved'),
      { attemptDeadlineMs: 10, budgetMs: 40, backoffMs: 5, maxBackoffMs: 10 },
      new AbortController().signal,
    );
    expect(outcome.value).to.equal(undefined);
    expect(outcome.attempts.length).to.be.greaterThan(0);
  });

  it('goes on past the budget while the runtime is still settling, and says for how long', async () => {
    let n = 0;
    const outcome = await retryLikeKubelet(
      async () => (++n < 6 ? failed('name is reserved') : { ok: true, value: 'pod-1', latencyMs: 1 }),
      { attemptDeadlineMs: 10, budgetMs: 20, backoffMs: 5, maxBackoffMs: 5, settleMs: 2_000 },
      new AbortController().signal,
      async () => true,
    );
    expect(outcome.value).to.equal('pod-1');
    expect(outcome.attempts.map((a) => a.attempt)).to.deep.equal([1, 2, 3, 4, 5, 6]);
    expect(outcome.settlingMs).to.be.a('number');
  });

  it('stops going on as soon as something is listed under the name', async () => {
    let n = 0;
    let asked = 0;
    const outcome = await retryLikeKubelet(
      async () => {
        n++;
        return failed('name is reserved');
      },
      { attemptDeadlineMs: 10, budgetMs: 10, backoffMs: 5, maxBackoffMs: 5, settleMs: 5_000 },
      new AbortController().signal,
      async () => ++asked < 3,
    );
    expect(outcome.value).to.equal(undefined);
    expect(outcome.settlingMs).to.be.below(1_000);
    expect(n - outcome.attempts.length).to.equal(0);
    expect(asked).to.equal(3);
  });

  it('does not go on past the budget when the policy gives no settling time', async () => {
    const outcome = await retryLikeKubelet(
      async () => failed('name is reserved'),
      { attemptDeadlineMs: 10, budgetMs: 10, backoffMs: 5 },
      new AbortController().signal,
      async () => true,
    );
    expect(outcome.settlingMs).to.equal(undefined);
  });

  it('stops at once when the check is aborted', async () => {
    const abort = new AbortController();
    abort.abort(new Error('check timed out'));
    const outcome = await retryLikeKubelet(
      async () => failed('x'),
      { attemptDeadlineMs: 10, budgetMs: 1_000 },
      abort.signal,
    );
    expect(outcome.attempts).to.deep.equal([]);
  });
});
