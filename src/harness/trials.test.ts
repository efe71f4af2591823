import { expect } from 'chai';
import type { CheckContext } from './context.js';
import { executeCheck } from './execute-check.js';
import { type FakeRuntime, fakeEnv, startFakeRuntime, testCheck } from './fake-runtime.test.helper.js';

describe('trials keep what they found (fake CRI)', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());

  /** Runs a three-trial check whose trial n does `byTrial[n - 1]`. */
  const runTrials = (
    byTrial: readonly ('hold' | 'violate' | 'skip' | 'error' | 'quiet')[],
    timeoutMs = 10_000,
  ) =>
    executeCheck(
      fakeEnv(fake.client, { trials: byTrial.length }),
      testCheck(
        async (t: CheckContext) =>
          t.trials(async (n) => {
            await t.cri.runPod(t.make.pod(`trial-${n}`));
            const what = byTrial[n - 1];
            if (what === 'skip') t.skip('the injector is gone');
            if (what === 'error') throw new Error('the plugin connection broke');
            if (what === 'quiet') return;
            t.expect(what === 'hold', `a duplicate in trial ${n}`);
          }),
        { trials: true },
      ),
      timeoutMs,
    );

  it('fails when trial 1 violated, although trial 3 skipped', async () => {
    const r = await runTrials(['violate', 'hold', 'skip']);
    expect(r.verdict).to.equal('failed');
    expect(r.message).to.match(/violated in 1 of 3 trials; first: trial 1: a duplicate in trial 1/);
    expect(r.message).to.match(/skip in trial 3: the injector is gone/);
  });

  it('fails when a violation comes after an error: the error does not end the trials', async () => {
    const r = await runTrials(['error', 'violate', 'hold']);
    expect(r.verdict).to.equal('failed');
    expect(r.trials).to.deep.equal({ run: 3, violated: 1 });
  });

  it('is an ERROR, not a FAIL, when trials errored and none violated', async () => {
    const r = await runTrials(['hold', 'error', 'hold']);
    expect(r.verdict).to.equal('error');
    expect(r.message).to.match(/1 of 3 trials could not decide; first: trial 2: the plugin connection broke/);
  });

  it('is an ERROR when a trial asserted nothing', async () => {
    const r = await runTrials(['hold', 'quiet', 'hold']);
    expect(r.verdict).to.equal('error');
    expect(r.message).to.match(/trial 2: asserted nothing/);
  });

  it('skips with the reason when a trial skipped and none violated or errored', async () => {
    const r = await runTrials(['hold', 'skip', 'hold']);
    expect(r.verdict).to.equal('skipped');
    expect(r.message).to.equal('trial 2: the injector is gone');
  });

  it('keeps a violation when the check times out in a later trial', async () => {
    const r = await executeCheck(
      fakeEnv(fake.client, { trials: 2 }),
      testCheck(
        async (t: CheckContext) =>
          t.trials(async (n) => {
            t.expect(n !== 1, 'two sandboxes in trial 1');
            await new Promise<void>((_, reject) =>
              t.signal.addEventListener('abort', () => reject(t.signal.reason)),
            );
          }),
        { trials: true },
      ),
      300,
    );
    expect(r.verdict).to.equal('failed');
    expect(r.message).to.match(/trial 1: two sandboxes in trial 1.*then: check timed out/);
  });

  it('cleans up between trials: each trial starts with none of the earlier trials\u2019 pods', async () => {
    const seen: number[] = [];
    const r = await executeCheck(
      fakeEnv(fake.client, { trials: 3 }),
      testCheck(
        async (t: CheckContext) =>
          t.trials(async (n) => {
            seen.push((await t.cri.listPods()).length);
            await t.cri.runPod(t.make.pod(`trial-${n}`));
            t.expect(true, 'held');
          }),
        { trials: true },
      ),
      10_000,
    );
    expect(r.verdict).to.equal('passed');
    expect(seen).to.deep.equal([0, 0, 0]);
    expect(fake.pods.size).to.equal(0);
  });
});
