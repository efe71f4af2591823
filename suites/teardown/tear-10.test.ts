import { expect } from 'chai';
import { inSuite } from '../../src/harness/check/check.js';
import {
  type FakeRuntime,
  fakeEnv,
  startFakeRuntime,
} from '../../src/harness/check/fake-runtime.test.helper.js';
import { executeCheck } from '../../src/harness/run/execute-check.js';
import { check as spec } from './tear-10.js';

const check = inSuite('teardown', [spec])[0];

describe('TEAR-10 on a fake runtime', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());

  it('says what the exec returned when the workload never shows that it ignores TERM', async () => {
    fake.override('ExecSync', () => ({
      stdout: Buffer.alloc(0),
      stderr: Buffer.from('sh: test: not found\n'),
      exitCode: 127,
    }));
    const env = fakeEnv(fake.client);
    if (!check) throw new Error('no TEAR-10');
    const r = await executeCheck(
      { ...env, settings: { ...env.settings, callTimeoutMs: 150 } },
      check,
      10_000,
    );
    expect(r.verdict).to.equal('error');
    expect(r.message).to.include(
      'waiting for the workload to ignore TERM (/tmp/term-ignored) (last seen: ExecSync test -e /tmp/term-ignored: exit 127, stderr: sh: test: not found)',
    );
  });
});
