import { status as Status } from '@grpc/grpc-js';
import { expect } from 'chai';
import type { CheckContext } from './context.js';
import { type FakeRuntime, grpcError, startFakeRuntime, testCheck } from './fake-runtime.test.helper.js';
import { CHECK_LABEL } from './labels.js';
import { type RunListener, runConformance } from './run.js';
import type { RunConfig } from './settings.js';

function configFor(endpoint: string): RunConfig {
  return {
    runtimeEndpoint: endpoint,
    imageEndpoint: endpoint,
    callTimeoutMs: 2_000,
    nriSocket: '/nonexistent/cc-unit/nri.sock',
    requireNri: false,
    nriRequestTimeoutMs: 2_000,
    runtimeHandler: '',
    testImage: 'test:1',
    pauseImage: 'pause:1',
    pull: 'never',
    restartTimeoutMs: 1_000,
    cacheTtlMs: 5_000,
    trials: 2,
    parallel: 1,
    checkTimeoutMs: 10_000,
    failFast: false,
    flakeAttempts: 0,
    suites: ['idempotency'],
    level: 'all',
    slow: false,
    nodeProbes: 'off',
    reportDir: 'reports',
    reportPrefix: '',
    flagsText: '',
  };
}

describe('a whole run: prepare, run, sweep (fake CRI)', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());

  it('runs each check to its verdict, skips what it cannot run, and sweeps what a check left under the run label', async () => {
    const notes: string[] = [];
    const listener: RunListener = {
      onStart: () => {},
      onCheckStart: () => {},
      onCheckEnd: () => {},
      onNote: (text) => notes.push(text),
    };
    const passing = testCheck(async (t: CheckContext) => t.expect(true, 'held'), { id: 'UNIT-01' });
    const leaving = testCheck(
      async (t: CheckContext) => {
        // Run-labelled but not check-labelled: only the final sweep can see it.
        const config = t.make.pod('left');
        delete config.labels[CHECK_LABEL];
        await t.cri.runPod(config);
        t.expect(true, 'held');
      },
      { id: 'UNIT-02' },
    );
    const needsNri = testCheck(async (t: CheckContext) => t.expect(true, 'unreached'), {
      id: 'UNIT-03',
      needs: ['nri'],
    });
    const outcome = await runConformance(
      configFor(fake.endpoint),
      [passing, leaving, needsNri],
      listener,
      new AbortController().signal,
      '0.0.0-test',
    );
    expect(outcome.results.map((r) => [r.id, r.verdict])).to.deep.equal([
      ['UNIT-01', 'passed'],
      ['UNIT-02', 'passed'],
      ['UNIT-03', 'skipped'],
    ]);
    expect(outcome.properties.runtimeName).to.equal('fake');
    expect(notes).to.include('final sweep removed 1 pods and 0 containers (left by the run)');
    expect(fake.pods.size).to.equal(0);
  });

  it('keeps the verdicts when the runtime stops answering before the sweep, and says how to clean up later', async () => {
    const notes: string[] = [];
    const unavailable = () => {
      throw grpcError(Status.UNAVAILABLE, 'connection refused');
    };
    const crashing = testCheck(
      async (t: CheckContext) => {
        await t.cri.runPod(t.make.pod('left'));
        t.expect(true, 'held');
        fake.override('ListContainers', unavailable);
        fake.override('ListPodSandbox', unavailable);
      },
      { id: 'UNIT-04' },
    );
    try {
      const outcome = await runConformance(
        configFor(fake.endpoint),
        [crashing],
        { onStart: () => {}, onCheckStart: () => {}, onCheckEnd: () => {}, onNote: (n) => notes.push(n) },
        new AbortController().signal,
        '0.0.0-test',
      );
      expect(outcome.results.map((r) => r.id)).to.deep.equal(['UNIT-04']);
      expect(notes.join('\n')).to.match(
        /^final sweep skipped, the runtime does not answer; once it does, run: cri-conform cleanup --run-id \S+ -r \S+\n {2}\(.*UNAVAILABLE/,
      );
    } finally {
      fake.override('ListContainers', undefined);
      fake.override('ListPodSandbox', undefined);
      fake.pods.clear();
    }
  });
});
