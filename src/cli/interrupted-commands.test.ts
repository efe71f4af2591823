/**
 * Ctrl-C on cleanup and doctor: each stops at its next safe point, says so and what finishes the work, and
 * exits 2, never 0 and never "ready" (signals.ts says why it waits for that point).
 */
import { expect } from 'chai';
import { type FakeRuntime, startFakeRuntime } from '../harness/check/fake-runtime.test.helper.js';
import { RUN_LABEL } from '../harness/core/labels.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

describe('cleanup and doctor after a signal', function () {
  this.timeout(30_000);
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());
  afterEach(() => fake.pods.clear());

  const interrupted = () => {
    const abort = new AbortController();
    abort.abort(new Error('interrupted by SIGINT'));
    return abort.signal;
  };

  it('cleanup stops before its next step, names the command that finishes it, and exits 2', async () => {
    const pod = fake.publish({
      metadata: { name: 'cc-idem-01-left', namespace: 'cri-conform', attempt: 0 },
      labels: { [RUN_LABEL]: 'killed' },
      state: 'SANDBOX_READY',
    });
    const io = recordingIo({}, interrupted());
    const code = await main(['node', 'cri-conform', 'cleanup', '--native', '-r', fake.endpoint], io);
    expect(code).to.equal(2);
    expect(io.stderr()).to.equal(
      `cri-conform: interrupted by SIGINT: stopped before the next step; run \`cri-conform cleanup --native -r ${fake.endpoint}\` to finish it\n`,
    );
    expect(fake.pods.has(pod), 'not started once interrupted').to.equal(true);
  });

  it('doctor gives no verdict and exits 2', async () => {
    const io = recordingIo({}, interrupted());
    const flags = ['-r', fake.endpoint, '--config', '/dev/null', '--node-probes', 'off'];
    const code = await main(['node', 'cri-conform', 'doctor', ...flags], io);
    expect(code).to.equal(2);
    expect(io.stdout()).to.not.contain('ready');
    expect(io.stderr()).to.contain(
      'cri-conform: interrupted by SIGINT: stopped before the next step; run doctor again for a verdict\n',
    );
  });
});
