import { expect } from 'chai';
import { executeCheck } from '../run/execute-check.js';
import type { CheckContext } from './context.js';
import { type FakeRuntime, fakeEnv, startFakeRuntime, testCheck } from './fake-runtime.test.helper.js';
import { describeStrength, detectableRate, plannedTrials } from './trials.js';

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
            t.expect(what === 'hold', `a duplicate in trial ${n}`, 'unit');
          }),
        { trials: true },
      ),
      timeoutMs,
    );

  it('fails at the first violation and runs no more trials: a violation decides', async () => {
    const r = await runTrials(['violate', 'hold', 'skip']);
    expect(r.verdict).to.equal('failed');
    expect(r.message).to.equal(
      'violated in trial 1 of 3 (trials 2-3 not run: one violation decides): a duplicate in trial 1',
    );
    expect(r.trials).to.deep.equal({ run: 1, violated: 1, atOnce: 1 });
    expect(fake.pods.size).to.equal(0);
  });

  it('says in a PASS what the trials could have seen', async () => {
    const r = await runTrials(['hold', 'hold', 'hold']);
    expect(r.verdict).to.equal('passed');
    expect(r.message).to.equal(
      'not seen in 3 trials; a race that shows in at least 64% of trials would have shown with 95% confidence',
    );
  });

  it('fails when a violation comes after an error: the error does not end the trials', async () => {
    const r = await runTrials(['error', 'violate', 'hold']);
    expect(r.verdict).to.equal('failed');
    expect(r.trials).to.deep.equal({ run: 2, violated: 1, atOnce: 1 });
    expect(r.message).to.match(
      /^violated in trial 2 of 3 \(trial 3 not run.*; also error in trial 1: the plugin connection broke$/,
    );
  });

  it('fails when the last trial violates, and says nothing of unrun trials', async () => {
    const r = await runTrials(['hold', 'hold', 'violate']);
    expect(r.verdict).to.equal('failed');
    expect(r.message).to.equal('violated in trial 3 of 3: a duplicate in trial 3');
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

  it('keeps the violation when the check times out while cleaning up after it', async () => {
    // StopPodSandbox answers late, so the cleanup after the violating trial outlasts the check's time.
    fake.override('StopPodSandbox', () => new Promise((resolve) => setTimeout(() => resolve({}), 600)));
    try {
      const r = await executeCheck(
        fakeEnv(fake.client, { trials: 2 }),
        testCheck(
          async (t: CheckContext) =>
            t.trials(async () => {
              await t.cri.runPod(t.make.pod('stuck'));
              t.expect(false, 'two sandboxes in trial 1', 'unit');
            }),
          { trials: true },
        ),
        300,
      );
      expect(r.verdict).to.equal('failed');
      expect(r.message).to.match(
        /^violated in trial 1 of 2 .*two sandboxes in trial 1; then: check timed out/,
      );
    } finally {
      fake.override('StopPodSandbox', undefined);
      fake.pods.clear();
    }
  });

  it('runs a scaled check its scale times --trials, and says so in the timeline', async () => {
    let ran = 0;
    const r = await executeCheck(
      fakeEnv(fake.client, { trials: 2 }),
      testCheck(
        async (t: CheckContext) =>
          t.trials(async () => {
            ran++;
            t.expect(true, 'held', 'unit');
          }),
        { trials: { scale: 3, why: 'a rare race' } },
      ),
      10_000,
    );
    expect(r.verdict).to.equal('passed');
    expect(ran).to.equal(6);
    expect(r.trials).to.deep.equal({ run: 6, violated: 0, atOnce: 1 });
    expect(r.timeline.some((e) => e.kind === 'note' && e.text === 'trial 6 of 6')).to.equal(true);
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
            t.expect(true, 'held', 'unit');
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

describe('plannedTrials', () => {
  it('rounds a scale that is not a whole number, and never plans fewer than one trial', () => {
    expect(plannedTrials(5, 9 / 5)).to.equal(9);
    expect(plannedTrials(3, 6 / 5)).to.equal(4);
    expect(plannedTrials(1, 1 / 5)).to.equal(1);
    expect(plannedTrials(5, 2)).to.equal(10);
  });
});

describe('the strength of a PASS', () => {
  it('is 1 - 0.05^(1/N): 19 trials are the fewest that see a race in 15% of trials', () => {
    expect(detectableRate(19)).to.be.at.most(0.15);
    expect(detectableRate(18)).to.be.above(0.15);
    expect(detectableRate(1)).to.be.closeTo(0.95, 1e-9);
  });

  it('states the default 20 trials as 14%, rounding up so it never claims more than the trials saw', () => {
    expect(describeStrength(20)).to.equal(
      'not seen in 20 trials; a race that shows in at least 14% of trials would have shown with 95% confidence',
    );
  });

  it('counts per path for a check with paths, from the path that ran least', () => {
    const even = new Map([
      ['sandbox: NRI Run hook', 20],
      ['container: NRI Run hook', 20],
    ]);
    expect(describeStrength(40, even)).to.equal(
      "not seen in 40 trials, 20 on each of its 2 paths (sandbox: NRI Run hook, container: NRI Run hook); a race that shows in at least 14% of a path's trials would have shown with 95% confidence",
    );
    const uneven = new Map([
      ['a', 7],
      ['b', 6],
    ]);
    expect(describeStrength(13, uneven)).to.equal(
      "not seen in 13 trials, at least 6 on each of its 2 paths (a, b); a race that shows in at least 40% of a path's trials would have shown with 95% confidence",
    );
  });
});
