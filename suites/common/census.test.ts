import { expect } from 'chai';
import {
  type FakeRuntime,
  fakeEnv,
  startFakeRuntime,
  testCheck,
} from '../../src/harness/check/fake-runtime.test.helper.js';
import type { CheckContext } from '../../src/harness/face.js';
import { executeCheck } from '../../src/harness/run/execute-check.js';
import { CENSUS_WINDOW_MS, expectOnePod } from './census.js';

describe('census: "exactly one" must hold over time (fake CRI)', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());

  /** A check that runs one pod and takes its census; `late` publishes a duplicate that long after the run. */
  const censusCheck = (lateMs?: number) =>
    testCheck(async (t: CheckContext) => {
      const config = t.make.pod('census');
      await t.cri.runPod(config);
      if (lateMs !== undefined) {
        const duplicate = { metadata: config.metadata, labels: config.labels, state: 'SANDBOX_NOTREADY' };
        setTimeout(() => fake.publish(duplicate), lateMs);
      }
      await expectOnePod(t, config.metadata.name, 'after one RunPodSandbox', 'unit');
    });

  it('passes when the count stays one over the settle window, and counts the window as a required wait', async () => {
    const r = await executeCheck(fakeEnv(fake.client), censusCheck(), 10_000);
    expect(r.verdict).to.equal('passed');
    expect(r.requiredWaitMs).to.equal(CENSUS_WINDOW_MS);
  });

  it('fails when a duplicate appears after the first count', async () => {
    const r = await executeCheck(fakeEnv(fake.client), censusCheck(CENSUS_WINDOW_MS / 4), 10_000);
    expect(r.verdict).to.equal('failed');
    expect(r.message).to.match(/but within \d+ ms the runtime listed 2 sandboxes named/);
  });
});
