import { expect } from 'chai';
import type { CheckContext, ConfigFactory } from '../check/context.js';
import { type FakeRuntime, fakeEnv, startFakeRuntime, testCheck } from '../check/fake-runtime.test.helper.js';
import { executeCheck } from './execute-check.js';

describe('the check context t (fake CRI)', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());

  const run = (body: Parameters<typeof testCheck>[0]) =>
    executeCheck(fakeEnv(fake.client), testCheck(body), 10_000);

  it('records a part the check could not test once, with its first reason, however often it is said', async () => {
    const r = await run(async (t: CheckContext) => {
      for (const trial of [1, 2, 3]) t.notRun('container variant', `not held in trial ${trial}`);
      t.expect(true, 'the sandbox variant held', 'unit');
    });
    expect(r.verdict).to.equal('passed');
    expect(r.notRun).to.deep.equal([{ part: 'container variant', why: 'not held in trial 1' }]);
    expect(r.observations['container variant']).to.equal('not run: not held in trial 1');
    const notes = r.timeline.filter(
      (e) => e.kind === 'note' && e.text.startsWith('container variant not run'),
    );
    expect(notes, 'the timeline keeps every trial’s').to.have.length(3);
  });

  it('clears the check’s objects on t.cleanupNow() with the same sequence the end of the check uses', async () => {
    const counts: number[] = [];
    const r = await run(async (t: CheckContext) => {
      await t.cri.runPod(t.make.pod('first'));
      await t.cri.runPod(t.make.pod('second'));
      counts.push((await t.cri.listPods()).length);
      await t.cleanupNow();
      counts.push((await t.cri.listPods()).length);
      await t.cri.runPod(t.make.pod('third'));
      t.expect(true, 'held', 'unit');
    });
    expect(r.verdict).to.equal('passed');
    expect(counts).to.deep.equal([2, 0]);
    expect(fake.pods.size).to.equal(0);
  });

  it('keeps what a trial built ahead for the next one (told which is last) through the cleanup between them, and removes it at the end', async () => {
    const seen: string[][] = [];
    const names = async (t: CheckContext) =>
      (await t.cri.listPods()).map((p) => /(made|ahead)\d/.exec(p.name)?.[0] ?? p.name);
    const r = await executeCheck(
      fakeEnv(fake.client, { trials: 2 }),
      testCheck(
        async (t: CheckContext) => {
          await t.trials(
            async (trial, setup) => {
              await t.cri.runPod(t.make.pod(`made${trial}`));
              seen.push([setup.built, ...(await names(t))].sort());
              setup.buildNext();
              t.expect(true, 'held', 'unit');
            },
            async (trial: number, make: ConfigFactory, last: boolean) => {
              await t.cri.runPod(make.pod(`ahead${trial}`));
              return `built${trial}${last ? ' (last)' : ''}`;
            },
          );
        },
        { trials: true },
      ),
      10_000,
    );
    expect(r.verdict).to.equal('passed');
    // Trial 2 starts with its pod built during trial 1, and without trial 1's.
    expect(seen).to.deep.equal([
      ['ahead1', 'built1', 'made1'],
      ['ahead2', 'built2 (last)', 'made2'],
    ]);
    expect(fake.pods.size).to.equal(0);
  });

  it('skips a check that needs host probes where there are none, with the reason', async () => {
    const r = await run(async (t: CheckContext) => {
      await t.host.snapshot('f'.repeat(64));
    });
    expect(r.verdict).to.equal('skipped');
    expect(r.message).to.equal('[Node] no host probes in unit tests');
  });

  it('skips a [Restart] check without a restart command', async () => {
    const r = await run(async (t: CheckContext) => {
      await t.restartRuntime();
    });
    expect(r.verdict).to.equal('skipped');
    expect(r.message).to.match(/--restart-cmd/);
  });

  it('records observations and steps on the timeline', async () => {
    const r = await run(async (t: CheckContext) => {
      t.step('arrange');
      t.observe('code', 'UNKNOWN');
      t.expect(true, 'held', 'unit');
    });
    expect(r.observations).to.deep.equal({ code: 'UNKNOWN' });
    const notes = r.timeline.flatMap((e) => (e.kind === 'note' ? [e.text] : []));
    expect(notes).to.include.members(['arrange', 'observed code = UNKNOWN']);
  });
});
