import { expect } from 'chai';
import { TRIAL_LABEL } from '../core/labels.js';
import { executeCheck } from '../run/execute-check.js';
import type { CheckContext, HostProbe } from './context.js';
import {
  type FakeRuntime,
  fakeEnv,
  startFakeRuntime,
  testCheck,
  unusedHost,
} from './fake-runtime.test.helper.js';
import type { CheckResult } from './result.js';

/** Resolves after `ms`; the tests below need trials that overlap in time. */
const pauseFor = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('trials side by side (fake CRI)', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());

  const run = (
    scenario: (t: CheckContext, trial: number) => Promise<void>,
    opts: { trials: number; parallelTrials: number; atOnce?: { max: number; why: string } },
  ): Promise<CheckResult> =>
    executeCheck(
      fakeEnv(fake.client, { trials: opts.trials, parallelTrials: opts.parallelTrials }),
      testCheck(async (t: CheckContext) => t.trials((n) => scenario(t, n)), {
        trials: opts.atOnce ? { atOnce: opts.atOnce } : true,
      }),
      20_000,
    );

  it('runs up to --parallel-trials trials at once, each seeing only its own pods', async () => {
    let running = 0;
    let most = 0;
    const listed: number[] = [];
    const r = await run(
      async (t: CheckContext, n: number) => {
        running++;
        most = Math.max(most, running);
        const config = t.make.pod(`side-${n}`);
        expect(config.labels[TRIAL_LABEL]).to.equal(String(n));
        expect(config.metadata.name).to.match(new RegExp(`^cc-unit-01t${n}-side-${n}-`));
        await t.cri.runPod(config);
        await pauseFor(60);
        listed.push((await t.cri.listPods()).length);
        running--;
        t.expect(true, 'held', 'unit');
      },
      { trials: 6, parallelTrials: 3 },
    );
    expect(r.verdict, r.message).to.equal('passed');
    expect(most).to.equal(3);
    expect(listed).to.deep.equal([1, 1, 1, 1, 1, 1]);
    expect(r.trials).to.deep.equal({ run: 6, violated: 0, atOnce: 3 });
    expect(fake.pods.size).to.equal(0);
  });

  it('clears a trial as it ends without touching the pods of the trials still running', async () => {
    const survived: boolean[] = [];
    const r = await run(
      async (t: CheckContext, n: number) => {
        const podId = await t.cri.runPod(t.make.pod(`long-${n}`));
        // Trial 1 ends at once and is cleared up while trial 2 still holds its pod.
        if (n === 2) {
          await pauseFor(150);
          survived.push((await t.cri.podStateOrGone(podId)) === 'SANDBOX_READY');
        }
        t.expect(true, 'held', 'unit');
      },
      { trials: 2, parallelTrials: 2 },
    );
    expect(r.verdict, r.message).to.equal('passed');
    expect(survived).to.deep.equal([true]);
  });

  it('names the violating trial, and starts no trial after it', async () => {
    const started: number[] = [];
    const r = await run(
      async (t: CheckContext, n: number) => {
        started.push(n);
        await t.cri.runPod(t.make.pod(`v-${n}`));
        await pauseFor(n === 2 ? 10 : 80);
        t.expect(n !== 2, `a leak in trial ${n}`, 'unit');
      },
      { trials: 8, parallelTrials: 3 },
    );
    expect(r.verdict).to.equal('failed');
    expect(r.message).to.match(
      /^violated in trial 2 of 8 \(trials 4-8 not run: one violation decides\): a leak in trial 2$/,
    );
    expect(started.sort()).to.deep.equal([1, 2, 3]);
    expect(r.violations?.[0]).to.include({ clause: 'unit', known: false });
    expect(r.violations?.[0]?.trials).to.deep.equal([2]);
  });

  it('gives each trial its own timeline entries and counts each trial’s assertions apart', async () => {
    const r = await run(
      async (t: CheckContext, n: number) => {
        await t.cri.runPod(t.make.pod(`tl-${n}`));
        // Trial 2 asserts nothing while trial 1 asserts: trial 2 must still be caught.
        if (n === 1) {
          await pauseFor(40);
          t.expect(true, 'held', 'unit');
        }
      },
      { trials: 2, parallelTrials: 2 },
    );
    expect(r.verdict).to.equal('error');
    expect(r.message).to.match(/trial 2: asserted nothing/);
    const calls = r.timeline.filter((e) => e.kind === 'cri' && e.method === 'RunPodSandbox');
    expect(calls.map((e) => e.trial).sort()).to.deep.equal([1, 2]);
  });

  it('takes no more trials at once than the check allows', async () => {
    let running = 0;
    let most = 0;
    const r = await run(
      async (t: CheckContext) => {
        running++;
        most = Math.max(most, running);
        await pauseFor(20);
        running--;
        t.expect(true, 'held', 'unit');
      },
      { trials: 4, parallelTrials: 4, atOnce: { max: 1, why: 'a unit test' } },
    );
    expect(r.verdict, r.message).to.equal('passed');
    expect(most).to.equal(1);
    expect(
      r.timeline.some((e) => e.kind === 'note' && e.text === 'at most 1 trials at once: a unit test'),
    ).to.equal(true);
  });

  it('lets trials into oneAtATime one after another, in the order they ask', async () => {
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    const r = await run(
      async (t: CheckContext, n: number) => {
        await t.oneAtATime('held hook', async () => {
          inside++;
          most = Math.max(most, inside);
          order.push(n);
          await pauseFor(15);
          inside--;
        });
        t.expect(true, 'held', 'unit');
      },
      { trials: 5, parallelTrials: 5 },
    );
    expect(r.verdict, r.message).to.equal('passed');
    expect(most).to.equal(1);
    expect(order).to.deep.equal([1, 2, 3, 4, 5]);
  });

  it('runs a trial again from a clean start when its scenario did not come about, and counts it once', async () => {
    const runs: number[] = [];
    const r = await run(
      async (t: CheckContext, n: number) => {
        runs.push(n);
        await t.cri.runPod(t.make.pod(`m-${n}`));
        if (n === 2 && runs.filter((x) => x === 2).length < 3)
          t.missed('the deadline expired before the hook');
        t.expect((await t.cri.listPods()).length === 1, 'one pod of the trial', 'unit');
      },
      { trials: 3, parallelTrials: 1 },
    );
    expect(r.verdict, r.message).to.equal('passed');
    expect(runs).to.deep.equal([1, 2, 2, 2, 3]);
    expect(r.trials).to.deep.equal({ run: 3, violated: 0, atOnce: 1 });
  });

  it('ends in ERROR when a trial’s scenario keeps not coming about', async () => {
    const r = await run(
      async (t: CheckContext) => {
        t.missed('the deadline expired before the hook');
      },
      { trials: 2, parallelTrials: 1 },
    );
    expect(r.verdict).to.equal('error');
    expect(r.message).to.match(
      /2 of 2 trials could not decide; first: trial 1: the deadline expired before the hook/,
    );
  });

  it('runs a trial again past three misses while each was set up anew to come about, and not without end', async () => {
    const runs: number[] = [];
    const r = await run(
      async (t: CheckContext, n: number) => {
        runs.push(n);
        if (runs.length < 5) t.missed('the deadline came before the hook; the next gives up later', true);
        t.expect(true, 'held', 'unit');
      },
      { trials: 1, parallelTrials: 1 },
    );
    expect(r.verdict, r.message).to.equal('passed');
    expect(runs).to.deep.equal([1, 1, 1, 1, 1]);
    const forever = await run(
      async (t: CheckContext) => t.missed('the deadline came before the hook; the next gives up later', true),
      { trials: 1, parallelTrials: 1 },
    );
    expect(forever.verdict).to.equal('error');
    expect(forever.message).to.match(/1 of 1 trials could not decide/);
  });

  it('reports the floors: the side-by-side one from each trial’s own waits, the serial one as their sum', async () => {
    const r = await run(
      async (t: CheckContext) => {
        await t.pause(50, 'a unit-test wait');
        t.expect(true, 'held', 'unit');
      },
      { trials: 4, parallelTrials: 2 },
    );
    expect(r.verdict, r.message).to.equal('passed');
    expect(r.floorMs).to.deep.equal({ sideBySide: 100, serial: 200 });
    expect(r.requiredWaitMs).to.equal(200);
  });

  it('lets a trial wait out a reaping grace without its place, so more trials are under way than work', async () => {
    const places = 2;
    const inGrace = { now: 0, most: 0 };
    const working = { now: 0, most: 0 };
    const count = (c: { now: number; most: number }, by: number) => {
      c.now += by;
      c.most = Math.max(c.most, c.now);
    };
    // The first look finds something left; the grace then lasts until every trial is in its own (or
    // 2 s, so that one that never gets there fails the count below rather than hangs), and ends reaped.
    const allInGrace = async () => {
      for (const end = Date.now() + 2_000; inGrace.now < 4 && Date.now() < end; ) await pauseFor(5);
    };
    const host: HostProbe = {
      ...unusedHost(),
      newLeftovers: async (_baseline, _evidence, opts) => {
        const rest = opts?.rest ?? ((wait) => wait());
        return rest(async () => {
          count(inGrace, 1);
          await allInGrace();
          count(inGrace, -1);
          return [];
        });
      },
    };
    const env = { ...fakeEnv(fake.client, { trials: 4, parallelTrials: places }), host };
    const check = testCheck(
      (t: CheckContext) =>
        t.trials(async () => {
          count(working, 1);
          await pauseFor(5);
          count(working, -1);
          t.expect(
            (await t.host.newLeftovers({} as never, { ids: [], labels: {} })).length === 0,
            'reaped',
            'unit',
          );
          count(working, 1);
          await pauseFor(5);
          count(working, -1);
        }),
      { trials: true },
    );
    const r = await executeCheck(env, check, 20_000);
    expect(r.verdict, r.message).to.equal('passed');
    expect(inGrace.most, 'trials in their grace at once').to.equal(4);
    expect(working.most, 'trials at work at once').to.be.at.most(places);
  });
});
