import { expect } from 'chai';
import { executeCheck } from '../run/execute-check.js';
import type { CheckContext } from './context.js';
import { type FakeRuntime, fakeEnv, startFakeRuntime, testCheck } from './fake-runtime.test.helper.js';

/** What each test's entry was asked to match, to see that it never got a composed message. */
const asked: string[] = [];
/** The known bugs of these tests: entries for UNIT-01 that match a leaked shim or cgroup on path "sandbox". */
const ENTRIES = {
  'entry 1': /^path "sandbox": a leaked shim$/,
  'entry 2': /^path "sandbox": a leaked cgroup$/,
};
const knownDeviation = (id: string, message: string) => {
  asked.push(message);
  if (id !== 'UNIT-01') return undefined;
  return Object.entries(ENTRIES).find(([, pattern]) => pattern.test(message))?.[0];
};

type Outcome = 'hold' | 'shim' | 'netns' | 'shim+cgroup' | 'shim+netns' | 'error' | 'skip' | 'hang';

describe('a known deviation decides only the trials it matched (fake CRI)', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());
  beforeEach(() => {
    asked.length = 0;
  });

  /**
   * A four-trial check that takes paths "sandbox" and "container" in every trial; `plan` says what each
   * path does in each trial (hold unless named).
   */
  const run = (plan: Record<string, Outcome>, timeoutMs = 10_000) => {
    const ran: string[] = [];
    const result = executeCheck(
      fakeEnv(fake.client, { trials: 4, knownDeviation }),
      testCheck(
        async (t: CheckContext) =>
          t.trials(async (n) => {
            for (const path of ['sandbox', 'container']) {
              await t.path(path, async () => {
                ran.push(`${path} ${n}`);
                const what = plan[`${path} ${n}`] ?? 'hold';
                if (what === 'error') throw new Error('the plugin connection broke');
                if (what === 'skip') t.skip('the injector is gone');
                // A call that never returns, as on a hung runtime (no declared wait moves the deadline).
                if (what === 'hang') await new Promise<void>(() => undefined);
                // Two builds' leftovers in one trial: independent findings, each in its own words.
                t.expectNone(
                  what === 'hold' ? [] : what.split('+').map((thing) => `a leaked ${thing}`),
                  'unit',
                );
              });
            }
          }),
        { trials: true },
      ),
      timeoutMs,
    );
    return { result, ran };
  };

  it('runs the path again in later trials, and fails as the known deviation with the trials it showed in', async () => {
    const { result, ran } = run({ 'sandbox 1': 'shim', 'sandbox 3': 'shim' });
    const r = await result;
    expect(ran).to.have.length(8);
    expect(r.verdict).to.equal('failed');
    expect(r.message).to.equal(
      'known deviation (paths "sandbox" held in 2 runs, "container" held in 4 runs): in trials 1, 3 of 4: path "sandbox": a leaked shim',
    );
    expect(r.violations).to.deep.equal([
      {
        clause: 'unit',
        message: 'path "sandbox": a leaked shim',
        known: true,
        path: 'sandbox',
        trials: [1, 3],
      },
    ]);
    expect(r.trials).to.deep.equal({ run: 4, violated: 2, atOnce: 1 });
  });

  it('is a plain FAIL when a path shows another violation later, with the known deviation kept beside it', async () => {
    const { result } = run({ 'sandbox 1': 'shim', 'container 4': 'netns' });
    const r = await result;
    expect(r.verdict).to.equal('failed');
    expect(r.message).to.equal('violated in trial 4 of 4: path "container": a leaked netns');
    expect(r.violations?.[0]).to.deep.equal({
      clause: 'unit',
      message: 'path "container": a leaked netns',
      known: false,
      trials: [4],
    });
    expect(r.observations['known deviation']).to.match(/in trial 1 of 4: path "sandbox": a leaked shim$/);
  });

  it('fails at once on a violation no entry names, even on the path a known one showed on', async () => {
    const { result, ran } = run({ 'sandbox 1': 'shim', 'sandbox 2': 'netns' });
    const r = await result;
    expect(ran).to.deep.equal(['sandbox 1', 'container 1', 'sandbox 2']);
    expect(r.message).to.equal(
      'violated in trial 2 of 4 (trials 3-4 not run: one violation decides): path "sandbox": a leaked netns',
    );
  });

  it('ends in ERROR when another path errs after the known deviation (the IDEM-16 reproduction)', async () => {
    const { result } = run({
      'sandbox 1': 'shim',
      'container 2': 'error',
      'container 3': 'error',
      'container 4': 'error',
    });
    const r = await result;
    expect(r.verdict).to.equal('error');
    expect(r.message).to.match(
      /^3 of 4 trials could not decide; first: trial 2: the plugin connection broke$/,
    );
    expect(r.observations['known deviation']).to.match(/path "sandbox": a leaked shim$/);
  });

  it('ends in ERROR, never SKIP, when a path skips after the known deviation', async () => {
    const r = await run({ 'sandbox 1': 'shim', 'container 2': 'skip' }).result;
    expect(r.verdict).to.equal('error');
    expect(r.message).to.match(/stopped at a skip after a known deviation/);
  });

  it('ends in ERROR when the check times out after the known deviation (a hung runtime)', async () => {
    const r = await run({ 'sandbox 1': 'shim', 'container 2': 'hang' }, 1_000).result;
    expect(r.verdict).to.equal('error');
    expect(r.message).to.match(/^check timed out after/);
    expect(r.observations['known deviation']).to.match(/a leaked shim$/);
  });

  it('keeps a trial that showed two known bugs at once as both, each under the entry that named it', async () => {
    const r = await run({ 'sandbox 1': 'shim', 'sandbox 2': 'shim+cgroup' }).result;
    expect(r.verdict).to.equal('failed');
    expect(r.message).to.equal(
      '2 known deviations (paths "sandbox" held in 2 runs, "container" held in 4 runs): in trials 1-2 of 4: path "sandbox": a leaked shim; in trial 2 of 4: path "sandbox": a leaked cgroup',
    );
    expect(r.violations?.map((v) => [v.message, v.known, v.trials])).to.deep.equal([
      ['path "sandbox": a leaked shim', true, [1, 2]],
      ['path "sandbox": a leaked cgroup', true, [2]],
    ]);
  });

  it('fails on a known bug met beside an unknown one in the same trial, naming both', async () => {
    const r = await run({ 'sandbox 1': 'shim+netns' }).result;
    expect(r.verdict).to.equal('failed');
    expect(r.message).to.equal(
      'violated in trial 1 of 4 (trials 2-4 not run: one violation decides): path "sandbox": a leaked shim; also: a leaked netns',
    );
    expect(r.violations).to.have.length(1);
    expect(r.violations?.[0]?.known).to.equal(false);
  });

  it('matches entries against the violation in its own words, never against a message composed around it', async () => {
    await run({ 'sandbox 1': 'shim', 'container 2': 'error', 'sandbox 3': 'netns' }).result;
    expect(asked).to.deep.equal(['path "sandbox": a leaked shim', 'path "sandbox": a leaked netns']);
  });

  it('lets the other variants of a check without trials run after a known deviation in one', async () => {
    const ran: string[] = [];
    const r = await executeCheck(
      fakeEnv(fake.client, { knownDeviation }),
      testCheck(async (t: CheckContext) => {
        await t.variant('sandbox', async () => {
          ran.push('sandbox');
          t.expect(false, 'a leaked shim', 'unit');
        });
        await t.variant('container', async () => {
          ran.push('container');
          t.expect(true, 'held', 'unit');
        });
      }),
      10_000,
    );
    expect(ran).to.deep.equal(['sandbox', 'container']);
    expect(r.verdict).to.equal('failed');
    expect(r.message).to.equal(
      'known deviation (paths "container" held in 1 run): path "sandbox": a leaked shim',
    );
  });
});
