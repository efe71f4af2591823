/**
 * End to end against real containerd (1.7 and 2.1 on CI): the shape of a run, not one runtime's verdicts.
 * Every selected check reaches a real verdict, nothing labelled is left, a run can be repeated, and SIGINT
 * mid-check cleans up and exits 2. The `--level all` run writes the violations it found to a scratch
 * sample, which deviation-replay.test.ts replays the bundled deviations against in the same `npm test`;
 * asked to (RECORD_SAMPLE_ENV), it also refreshes the committed sample (fixtures/deviation-replay).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { CheckResult, ViolationRecord } from '../harness/check/result.js';
import {
  readSample,
  recordRun,
  samplePath,
  scratchSamplePath,
  writeSample,
} from '../harness/deviations/deviation-replay.js';
import { describeSkipped } from '../skip-reason.test.helper.js';
import {
  labelledLeft,
  NO_RUNTIME_REASON,
  ROOT,
  runCli,
  runtimesUnderTest,
  untilLabelledPod,
} from './e2e-env.test.helper.js';

interface JsonResult {
  id: string;
  verdict: string;
  message: string | null;
  detail: string | null;
  tags: string[];
  violations: ViolationRecord[] | null;
}

interface JsonReport {
  properties: {
    runtimeName: string;
    runtimeVersion: string;
    startedAt: string;
    nriTimeouts?: 'not sent' | { requestMs: number; registrationMs: number };
  };
  results: JsonResult[];
}

/**
 * Set to 1, the `--level all` run rewrites the tracked sample with its failure messages (then commit it).
 * Unset, a test run leaves the sample, like every tracked file, as it was.
 */
const RECORD_SAMPLE_ENV = 'CRI_CONFORM_RECORD_REPLAY_SAMPLE';

/**
 * Writes this run's violations to the scratch sample (every run) and, when asked, into the committed
 * sample: the bundled deviations are replayed against both (deviation-replay.test.ts).
 */
function recordFailureMessages(report: JsonReport): void {
  const { runtimeName, runtimeVersion, startedAt } = report.properties;
  const run = { runtime: runtimeName, version: runtimeVersion, at: startedAt };
  const results = report.results.map((r) => ({
    id: r.id,
    verdict: r.verdict as CheckResult['verdict'],
    ...(r.message === null ? {} : { message: r.message }),
    ...(r.detail === null ? {} : { detail: r.detail }),
    ...(r.violations === null ? {} : { violations: r.violations }),
  }));
  const empty = { about: '', runs: [] };
  writeSample(scratchSamplePath(runtimeName, runtimeVersion), recordRun(empty, run, results));
  if (process.env[RECORD_SAMPLE_ENV] !== '1') return;
  const path = samplePath(ROOT, runtimeName);
  writeSample(path, recordRun(readSample(path), run, results));
}

if (runtimesUnderTest().length === 0)
  describeSkipped('cri-conform against real containerd', NO_RUNTIME_REASON);
for (const runtime of runtimesUnderTest()) {
  describe(`cri-conform against ${runtime.name}`, function () {
    this.timeout(15 * 60_000);
    const endpoint = runtime.env.CONTAINER_RUNTIME_ENDPOINT ?? '';
    const made: string[] = [];
    const reportDir = () => {
      const dir = mkdtempSync(join(tmpdir(), 'cc-e2e-'));
      made.push(dir);
      return dir;
    };
    after(() => {
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    });

    it('doctor finds the runtime, NRI, the images and the injectors ready', async () => {
      const run = await runCli(['doctor'], runtime.env);
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      expect(run.stdout).to.match(/ok {3}NRI v0\.\d/);
    });

    it('gives every check of every suite a real verdict and leaves nothing labelled behind', async () => {
      const dir = reportDir();
      const run = await runCli(['run', '--level', 'all', '--trials', '2', '--report-dir', dir], runtime.env);
      expect(run.code, run.stderr).to.be.oneOf([0, 1]);
      const report = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as JsonReport;
      recordFailureMessages(report);
      const toolErrors = report.results
        .filter((r) => r.verdict === 'error')
        .map((r) => `${r.id}: ${r.message}`);
      expect(toolErrors, 'checks that reached no verdict').to.deep.equal([]);
      // On a fully provisioned containerd only [Slow] checks skip, plus capability gaps of containerd
      // itself: it runs runc at StartContainer, so no injector outside NRI can hold CreateContainer (IDEM-07),
      // 1.7's NRI (before 0.8) sends no pod IPs, so HOOK-04 cannot see whether CNI ran before its hook, and
      // it holds no timed-out sandbox for reuse, so IDEM-04 has no held sandbox to watch.
      const capabilityGaps: readonly [string, RegExp][] = [
        ['IDEM-07', /nothing outside NRI can hold CreateContainer/],
        ['IDEM-04', /^the runtime holds nothing for reuse: /],
        ['HOOK-04', /pod events carry no IPs \(NRI v0\.[0-7]\./],
      ];
      const unexpectedSkips = report.results
        .filter((r) => r.verdict === 'skipped' && !r.tags.includes('Slow'))
        .filter((r) => !capabilityGaps.some(([id, why]) => r.id === id && why.test(r.message ?? '')))
        .map((r) => `${r.id}: ${r.message}`);
      expect(unexpectedSkips, 'checks that skipped on a fully provisioned containerd').to.deep.equal([]);
      const verdicts = report.results.filter((r) => ['passed', 'failed', 'observed'].includes(r.verdict));
      // Every skip is one of those allowed above ([Slow] or a capability gap): the rest have a real verdict.
      const skipped = report.results.filter((r) => r.verdict === 'skipped').length;
      expect(verdicts.length, 'checks with a pass/fail/observed verdict').to.equal(
        report.results.length - skipped,
      );
      expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).to.match(/<testsuite /);
      // What the runtime's NRI sent when the probe plugin registered: both timeouts, or none before v0.7.
      const { nriTimeouts } = report.properties;
      if (nriTimeouts !== 'not sent') {
        expect(nriTimeouts?.requestMs, 'NRI request timeout').to.be.above(0);
        expect(nriTimeouts?.registrationMs, 'NRI registration timeout').to.be.above(0);
      }
      expect(await labelledLeft(endpoint)).to.deep.equal({ pods: [], containers: [] });
    });

    it('runs again right after, with the same result shape', async () => {
      const dir = reportDir();
      const run = await runCli(
        ['run', '--focus', '^(IDEM-11|TEAR-09|HOOK-01) ', '--report-dir', dir],
        runtime.env,
      );
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      expect(await labelledLeft(endpoint)).to.deep.equal({ pods: [], containers: [] });
    });

    it('on SIGINT mid-check releases the held hook, removes what it made, writes the partial report and exits 2', async () => {
      const dir = reportDir();
      let interrupt: ((signal: NodeJS.Signals) => void) | undefined;
      const running = runCli(['run', '--focus', '^TEAR-04 ', '--report-dir', dir], runtime.env, {
        onSpawn: (kill) => {
          interrupt = kill;
        },
      });
      // Interrupt once the check has made a pod: then there is something to clean up. The readiness
      // proof's pod comes first, and is not the check's.
      await untilLabelledPod(endpoint, 60_000, 'cc-tear-04-');
      interrupt?.('SIGINT');
      const run = await running;
      expect(run.code, run.stdout + run.stderr).to.equal(2);
      expect(run.stderr).to.match(/SIGINT/);
      const report = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as {
        interrupted: string | null;
      };
      expect(report.interrupted).to.match(/SIGINT/);
      expect(await labelledLeft(endpoint)).to.deep.equal({ pods: [], containers: [] });
    });
  });
}
