import { expect } from 'chai';
import { executeCheck } from '../run/execute-check.js';
import type { CheckContext } from './context.js';
import { type FakeRuntime, fakeEnv, startFakeRuntime, testCheck } from './fake-runtime.test.helper.js';
import { SharedOutcomes } from './shared-outcomes.js';

describe('scenarios shared by the checks of one run (fake CRI)', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());

  /** A check that asks for the shared scenario "hang" and asserts on the pod id it recorded. */
  const reader = (id: string, produce: (t: CheckContext) => Promise<string>) =>
    testCheck(
      async (t: CheckContext) => {
        const podId = await t.shared('hang', () => produce(t));
        t.expect(podId.length > 0, 'the scenario recorded a pod', 'unit');
      },
      { id },
    );

  it('runs the scenario for the first check only; a later check reads the record and says whose it is', async () => {
    const env = { ...fakeEnv(fake.client), shared: new SharedOutcomes() };
    let runs = 0;
    const produce = async (t: CheckContext) => {
      runs++;
      return t.cri.runPod(t.make.pod('hang'));
    };
    const first = await executeCheck(env, reader('TEAR-04', produce), 10_000);
    const second = await executeCheck(env, reader('TEAR-06', produce), 10_000);
    expect([first.verdict, second.verdict]).to.deep.equal(['passed', 'passed']);
    expect(runs).to.equal(1);
    expect(second.observations.scenario).to.equal('hang: run by TEAR-04');
    expect(second.timeline.map((e) => ('text' in e ? e.text : ''))).to.include(
      'scenario "hang" as TEAR-04 ran it in this run (its timeline has the calls)',
    );
  });

  it('lets a check that runs beside the one running the scenario wait for its record instead of running it too', async () => {
    const env = { ...fakeEnv(fake.client), shared: new SharedOutcomes() };
    let runs = 0;
    const produce = async (t: CheckContext) => {
      runs++;
      await new Promise((r) => setTimeout(r, 50));
      return t.cri.runPod(t.make.pod('hang'));
    };
    const [first, second] = await Promise.all([
      executeCheck(env, reader('TEAR-05', produce), 10_000),
      executeCheck(env, reader('TEAR-15', produce), 10_000),
    ]);
    expect([first.verdict, second.verdict]).to.deep.equal(['passed', 'passed']);
    expect(runs).to.equal(1);
    expect(second.observations.scenario).to.equal('hang: run by TEAR-05');
  });

  it('does not record a scenario that threw: the next check runs it again', async () => {
    const env = { ...fakeEnv(fake.client), shared: new SharedOutcomes() };
    let runs = 0;
    const produce = async (t: CheckContext) => {
      runs++;
      if (runs === 1) throw new Error('the plugin connection broke');
      return t.cri.runPod(t.make.pod('hang'));
    };
    const first = await executeCheck(env, reader('TEAR-04', produce), 10_000);
    const second = await executeCheck(env, reader('TEAR-06', produce), 10_000);
    expect([first.verdict, second.verdict]).to.deep.equal(['error', 'passed']);
    expect(runs).to.equal(2);
    expect(second.observations.scenario).to.equal(undefined);
  });

  it('shares nothing between environments (runs, flake re-attempts) or without a store', async () => {
    let runs = 0;
    const produce = async (t: CheckContext) => {
      runs++;
      return t.cri.runPod(t.make.pod('hang'));
    };
    await executeCheck(
      { ...fakeEnv(fake.client), shared: new SharedOutcomes() },
      reader('TEAR-04', produce),
      10_000,
    );
    await executeCheck(
      { ...fakeEnv(fake.client), shared: new SharedOutcomes() },
      reader('TEAR-06', produce),
      10_000,
    );
    await executeCheck(fakeEnv(fake.client), reader('TEAR-13', produce), 10_000);
    await executeCheck(fakeEnv(fake.client), reader('TEAR-13', produce), 10_000);
    expect(runs).to.equal(4);
  });
});
