import { expect } from 'chai';
import type { CheckContext } from './context.js';
import { executeCheck } from './execute-check.js';
import { type FakeRuntime, fakeEnv, startFakeRuntime, testCheck } from './fake-runtime.test.helper.js';

describe('the check context t (fake CRI)', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());

  const run = (body: Parameters<typeof testCheck>[0]) =>
    executeCheck(fakeEnv(fake.client), testCheck(body), 10_000);

  it('clears the check’s objects on t.cleanupNow() with the same sequence the end of the check uses', async () => {
    const counts: number[] = [];
    const r = await run(async (t: CheckContext) => {
      await t.cri.runPod(t.make.pod('first'));
      await t.cri.runPod(t.make.pod('second'));
      counts.push((await t.cri.listPods()).length);
      await t.cleanupNow();
      counts.push((await t.cri.listPods()).length);
      await t.cri.runPod(t.make.pod('third'));
      t.expect(true, 'held');
    });
    expect(r.verdict).to.equal('passed');
    expect(counts).to.deep.equal([2, 0]);
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
      t.expect(true, 'held');
    });
    expect(r.observations).to.deep.equal({ code: 'UNKNOWN' });
    const notes = r.timeline.flatMap((e) => (e.kind === 'note' ? [e.text] : []));
    expect(notes).to.include.members(['arrange', 'observed code = UNKNOWN']);
  });
});
