import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { status as Status } from '@grpc/grpc-js';
import { expect } from 'chai';
import { startReferenceRuntime } from '../../../fixtures/reference/start.js';
import { createConsoleReporter } from '../../report/console.js';
import { renderHtml } from '../../report/html/render-html.js';
import { renderJson } from '../../report/json.js';
import { renderJUnit } from '../../report/junit.js';
import { outcomeExitCode } from '../../report/tally.js';
import type { CheckContext } from '../check/context.js';
import {
  type FakeRuntime,
  grpcError,
  startFakeRuntime,
  testCheck,
} from '../check/fake-runtime.test.helper.js';
import { EnvironmentError } from '../core/errors.js';
import { CHECK_LABEL, POD_NAMESPACE, RUN_LABEL } from '../core/labels.js';
import type { RunConfig } from '../core/settings.js';
import { claimRunLogs, removeRunLogs, runLogDirectory } from '../host/pod-logs.js';
import { readProcStat } from '../host/proc.js';
import { currentOwner } from '../host/run-owner.js';
import { type RunListener, runConformance } from './run.js';

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
    parallelTrials: 1,
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

/** A listener that keeps the run's notes, for the assertions on them. */
function noteKeeper(): { listener: RunListener; notes: string[] } {
  const notes: string[] = [];
  const listener: RunListener = {
    onStart: () => {},
    onCheckStart: () => {},
    onCheckEnd: () => {},
    onNote: (text) => notes.push(text),
  };
  return { listener, notes };
}

describe('a whole run: prepare, run, sweep (fake CRI)', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());

  it('runs each check to its verdict, skips what it cannot run, and sweeps what a check left under the run label', async () => {
    const { listener, notes } = noteKeeper();
    const passing = testCheck(async (t: CheckContext) => t.expect(true, 'held', 'unit'), { id: 'UNIT-01' });
    const leaving = testCheck(
      async (t: CheckContext) => {
        // Run-labelled but not check-labelled: only the final sweep can see it.
        const config = t.make.pod('left');
        delete config.labels[CHECK_LABEL];
        await t.cri.runPod(config);
        t.expect(true, 'held', 'unit');
      },
      { id: 'UNIT-02' },
    );
    const needsNri = testCheck(async (t: CheckContext) => t.expect(true, 'unreached', 'unit'), {
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
    expect(outcome.properties.kubelet, 'the report says whether a kubelet was seen').to.equal('none seen');
    expect(renderJUnit(outcome)).to.include('<property name="kubelet" value="none seen"/>');
    expect(notes).to.include('final sweep removed 1 pods and 0 containers (left by the run)');
    expect(fake.pods.size).to.equal(0);
  });

  it('warns of the pods an ended run left, and leaves them to cleanup', async () => {
    const ended = `test-run-ended-${process.pid}`;
    claimRunLogs(ended, { ...currentOwner(), pid: spawnSync('true').pid as number });
    fake.publish({
      metadata: { name: 'cc-idem-01-x', namespace: POD_NAMESPACE, attempt: 0 },
      labels: { [RUN_LABEL]: ended },
      state: 'SANDBOX_READY',
    });
    const { listener, notes } = noteKeeper();
    const check = testCheck(async (t: CheckContext) => t.expect(true, 'held', 'unit'), { id: 'UNIT-07' });
    try {
      await runConformance(
        configFor(fake.endpoint),
        [check],
        listener,
        new AbortController().signal,
        '0.0.0-test',
      );
      expect(notes).to.include(
        `warning: leftovers of ended cri-conform runs: 1 pod of 1 run no longer running (${ended}): run \`cri-conform cleanup -r ${fake.endpoint}\` before the node takes workloads`,
      );
      expect(fake.pods.size, "another run's pod is not this run's to remove").to.equal(1);
    } finally {
      fake.pods.clear();
      removeRunLogs(ended);
    }
  });

  it('stops before readiness with what to do when a live run of another process tests the same runtime', async () => {
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    const first = `test-run-first-${process.pid}`;
    try {
      await new Promise((resolve) => other.once('spawn', resolve));
      const startTime = readProcStat(other.pid as number)?.startTime ?? '';
      const runtime = { endpoint: fake.endpoint, claimedAt: Date.now() - 1_000 };
      claimRunLogs(first, { ...currentOwner(), pid: other.pid as number, startTime }, runtime);
      let ran = false;
      const check = testCheck(async () => {
        ran = true;
      });
      const refused = await runConformance(
        configFor(fake.endpoint),
        [check],
        noteKeeper().listener,
        new AbortController().signal,
        '0.0.0-test',
      ).catch((e: unknown) => e);
      expect(refused).to.be.instanceOf(EnvironmentError).with.property('message').that.contains(first);
      expect(ran, 'no check ran').to.equal(false);
    } finally {
      other.kill('SIGKILL');
      removeRunLogs(first);
    }
  });

  it('runs no check after a signal that came before the checks started (during readiness), and says it was interrupted', async () => {
    const interrupt = new AbortController();
    const listener: RunListener = {
      // Before the first check: where a SIGINT during readiness's proof pod lands.
      onStart: () => interrupt.abort(new Error('SIGINT')),
      onCheckStart: () => {},
      onCheckEnd: () => {},
      onNote: () => {},
    };
    const ran: string[] = [];
    const check = testCheck(
      async (t: CheckContext) => {
        ran.push(t.id);
        t.expect(true, 'held', 'unit');
      },
      { id: 'UNIT-01' },
    );
    const outcome = await runConformance(
      configFor(fake.endpoint),
      [check],
      listener,
      interrupt.signal,
      '0.0.0-test',
    );
    expect(ran, 'no check ran after the signal').to.deep.equal([]);
    expect(outcome.interrupted).to.equal('SIGINT');
  });

  it('removes its pod log directory when the run throws before its sweep', async () => {
    let runId = '';
    const listener: RunListener = {
      onStart: (_count, properties) => {
        runId = properties.runId;
      },
      onCheckStart: () => {
        expect(existsSync(runLogDirectory(runId)), 'made before the first check').to.equal(true);
        throw new Error('the reporter broke');
      },
      onCheckEnd: () => {},
      onNote: () => {},
    };
    const check = testCheck(async (t: CheckContext) => t.expect(true, 'held', 'unit'), { id: 'UNIT-06' });
    const failed = await runConformance(
      configFor(fake.endpoint),
      [check],
      listener,
      new AbortController().signal,
      '0.0.0-test',
    ).catch((e: unknown) => e);
    expect(failed).to.be.instanceOf(Error).with.property('message', 'the reporter broke');
    expect(existsSync(runLogDirectory(runId)), "the run's pod logs").to.equal(false);
  });

  it('keeps the verdicts when the runtime stops answering before the sweep, and says how to clean up later', async () => {
    const { listener, notes } = noteKeeper();
    const unavailable = () => {
      throw grpcError(Status.UNAVAILABLE, 'connection refused');
    };
    const crashing = testCheck(
      async (t: CheckContext) => {
        await t.cri.runPod(t.make.pod('left'));
        t.expect(true, 'held', 'unit');
        fake.override('ListContainers', unavailable);
        fake.override('ListPodSandbox', unavailable);
      },
      { id: 'UNIT-04' },
    );
    try {
      const outcome = await runConformance(
        configFor(fake.endpoint),
        [crashing],
        listener,
        new AbortController().signal,
        '0.0.0-test',
      );
      expect(outcome.results.map((r) => r.id)).to.deep.equal(['UNIT-04']);
      expect(notes.join('\n')).to.match(
        /^final sweep skipped, the runtime does not answer; once it does, run: cri-conform cleanup --run-id \S+ -r \S+\n {2}\(.*UNAVAILABLE/,
      );
      expect(existsSync(runLogDirectory(outcome.properties.runId)), "the run's pod logs").to.equal(false);
    } finally {
      fake.override('ListContainers', undefined);
      fake.override('ListPodSandbox', undefined);
      fake.pods.clear();
    }
  });

  describe('a runtime that crashes during a check is a failure of the run, with the check', () => {
    const unavailable = () => {
      throw grpcError(Status.UNAVAILABLE, 'connection refused');
    };
    const CRASH_METHODS = ['Version', 'ListContainers', 'ListPodSandbox', 'RunPodSandbox'];

    it('reports the crash once, with the check it happened in, in the console, JUnit, JSON and HTML, and exits 1', async () => {
      const crashing = testCheck(
        async (t: CheckContext) => {
          await t.cri.runPod(t.make.pod('crash'));
          for (const m of CRASH_METHODS) fake.override(m, unavailable);
          t.expect(true, 'what it checked held before the crash', 'unit');
        },
        { id: 'UNIT-05' },
      );
      // The runtime is back (a service manager restarted it): the same crash, not a second one.
      const after = testCheck(
        async (t: CheckContext) => {
          for (const m of CRASH_METHODS) fake.override(m, undefined);
          t.expect(true, 'held', 'unit');
        },
        { id: 'UNIT-06' },
      );
      const { listener, notes } = noteKeeper();
      try {
        const outcome = await runConformance(
          configFor(fake.endpoint),
          [crashing, after],
          listener,
          new AbortController().signal,
          '0.0.0-test',
        );
        const line = 'runtime crash during UNIT-05: the runtime stopped answering (Version got no reply)';
        expect(outcome.runtimeCrashes).to.deep.equal([
          { check: 'UNIT-05', beside: [], evidence: 'the runtime stopped answering (Version got no reply)' },
        ]);
        expect(notes, 'announced when it was seen').to.include(line);
        expect(outcomeExitCode(outcome)).to.equal(1);

        let printed = '';
        createConsoleReporter({ write: (t) => (printed += t), isTTY: false }, { color: false }).onEnd(
          outcome,
        );
        expect(printed).to.include(`Runtime crashes (each fails the run)\n  ✘ ${line}`);
        const json = JSON.parse(renderJson(outcome)) as { runtimeCrashes: unknown };
        expect(json.runtimeCrashes).to.deep.equal(outcome.runtimeCrashes);
        expect(renderJUnit(outcome)).to.match(
          /<testsuite name="runtime"[^>]*failures="1"[\s\S]*<testcase classname="cri-conform.runtime" name="runtime crash during UNIT-05"[\s\S]*<failure message="runtime crash during UNIT-05: the runtime stopped answering \(Version got no reply\)" type="runtime-crash"/,
        );
        expect(renderHtml(outcome)).to.include(
          '<p class="known">Runtime crash during UNIT-05: the runtime stopped answering (Version got no reply)</p>',
        );
      } finally {
        for (const m of CRASH_METHODS) fake.override(m, undefined);
        fake.pods.clear();
      }
    });

    it('takes a restart on its own (a new socket) for a crash, and the one --restart-cmd made for none', async () => {
      const runtime = await startReferenceRuntime({ restartVia: 'socket' });
      const env = runtime.env;
      const config: RunConfig = {
        ...configFor(env.CONTAINER_RUNTIME_ENDPOINT ?? ''),
        testImage: env.CRI_CONFORM_TEST_IMAGE ?? '',
        pauseImage: env.CRI_CONFORM_PAUSE_IMAGE ?? '',
        restartCmd: env.CRI_CONFORM_RESTART_CMD ?? '',
        restartTimeoutMs: 10_000,
      };
      const asked = testCheck(
        async (t: CheckContext) => {
          await t.restartRuntime();
          t.expect(true, 'it came back', 'unit');
        },
        { id: 'UNIT-08', tags: ['Restart'] },
      );
      const unasked = testCheck(
        async (t: CheckContext) => {
          await runtime.restart();
          t.expect(true, 'it came back', 'unit');
        },
        { id: 'UNIT-09' },
      );
      try {
        const outcome = await runConformance(
          config,
          [asked, unasked],
          noteKeeper().listener,
          new AbortController().signal,
          '0.0.0-test',
        );
        expect(outcome.results.map((r) => [r.id, r.verdict])).to.deep.equal([
          ['UNIT-08', 'passed'],
          ['UNIT-09', 'passed'],
        ]);
        expect(outcome.runtimeCrashes?.map((c) => c.check)).to.deep.equal(['UNIT-09']);
        expect(outcome.runtimeCrashes?.[0]?.evidence).to.match(
          /^the runtime restarted on its own: its socket is served anew \(listening socket inode \d+, now \d+\)$/,
        );
      } finally {
        await runtime.close();
      }
    });

    it('reports no crash for a run whose runtime kept answering', async () => {
      const fine = testCheck(async (t: CheckContext) => t.expect(true, 'held', 'unit'), { id: 'UNIT-07' });
      const outcome = await runConformance(
        configFor(fake.endpoint),
        [fine],
        noteKeeper().listener,
        new AbortController().signal,
        '0.0.0-test',
      );
      expect(outcome.runtimeCrashes).to.equal(undefined);
      expect(outcomeExitCode(outcome)).to.equal(0);
      expect(renderJUnit(outcome)).to.not.include('name="runtime"');
    });
  });
});
