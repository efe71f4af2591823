/**
 * Each way a run dies, on real containerd, followed by `cleanup`: afterwards the host holds nothing the
 * run made, by a snapshot of processes, mounts, links, netns, cgroups, /run/cri-conform and /var/lib/cni
 * taken before the run and compared in what the run could have made (host-snapshot.test.helper.ts says
 * why that comparison is sound on a host others share). One short run per way, on the first runtime
 * under test (the ways do not depend on its version; the deleted worker pod is in the fleet e2e test):
 * - kill -9 of `run --isolated`: its supervisor removes the private instance within seconds;
 * - SIGHUP (a dropped ssh session) of `run --isolated`: it stops as on Ctrl-C and removes its instance;
 * - the runtime restarted under a plain `run`: the run ends, and cleanup removes what it could not.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { describeSkipped } from '../skip-reason.test.helper.js';
import {
  type CliRun,
  NO_RUNTIME_REASON,
  runCli,
  runtimesUnderTest,
  untilLabelledPod,
} from './e2e-env.test.helper.js';
import { hostSnapshot, instanceMarks, madeSince, type RunMarks } from './host-snapshot.test.helper.js';
import {
  instanceNames,
  newInstanceDir,
  type SeenObjects,
  untilCopyHasPod,
  watchInstance,
  watchRuntime,
} from './instance-traces.test.helper.js';
import { waitUntil } from './sonobuoy/progress-server.test.helper.js';

/** TEAR-04 hangs NRI hooks for seconds: the run is surely mid-run, with pods, when it dies. */
const FOCUS = '^TEAR-04 ';
/** The supervisor's whole bound: the run's exit, then a bounded removal (removal.ts REMOVAL_WITHIN_MS). */
const SUPERVISOR_WITHIN_MS = 80_000;

/** The watch looks less often than the waits for a first pod: it must see the run too before the run dies. */
const SEEN_WITHIN_MS = 10_000;

const first = runtimesUnderTest()[0];
if (!first) describeSkipped('a run that dies leaves nothing behind', NO_RUNTIME_REASON);
else
  describe(`a run that dies leaves nothing behind, on ${first.name}`, function () {
    const runtime = first;
    this.timeout(4 * 60_000);
    const endpoint = runtime.env.CONTAINER_RUNTIME_ENDPOINT ?? '';
    let reportDir: string;
    beforeEach(() => {
      reportDir = mkdtempSync(join(tmpdir(), 'cc-e2e-kill-'));
    });
    afterEach(() => rmSync(reportDir, { recursive: true, force: true }));

    /** `run --isolated` on TEAR-04 until its instance holds a pod; the instance's marks as it is watched. */
    async function isolatedMidRun() {
      const before = instanceNames();
      let kill: (signal: NodeJS.Signals) => void = () => undefined;
      const running = runCli(
        ['run', '--isolated', '--focus', FOCUS, '--report-dir', reportDir],
        runtime.env,
        {
          onSpawn: (k) => {
            kill = k;
          },
        },
      );
      const dir = await newInstanceDir(endpoint, before, 60_000);
      const watch = watchInstance(dir);
      const { network } = JSON.parse(readFileSync(join(dir, 'instance.json'), 'utf8')) as {
        network: { number: number; bridge: string };
      };
      await untilCopyHasPod(dir, 60_000);
      await waitUntil(() => watch.seen.ids.size > 0, {
        withinMs: SEEN_WITHIN_MS,
        what: "the copy's objects seen",
      });
      const marks = (seen: SeenObjects) => instanceMarks(dir, network, seen);
      return { running, kill, dir, watch, marks };
    }

    /** `cleanup --isolated` and plain `cleanup` of this runtime: both find nothing left to fail on. */
    async function cleanupAfter(): Promise<CliRun[]> {
      const runs = [
        await runCli(['cleanup', '--isolated', '-r', endpoint], runtime.env),
        await runCli(['cleanup', '-r', endpoint], runtime.env),
      ];
      for (const r of runs) expect(r.code, r.stdout + r.stderr).to.equal(0);
      return runs;
    }

    it('kill -9 of run --isolated: its supervisor removes the instance within seconds, and cleanup finds the host as before', async () => {
      const before = hostSnapshot();
      const { running, kill, dir, watch, marks } = await isolatedMidRun();
      kill('SIGKILL');
      const killed = await running;
      expect(killed.code, 'killed, no exit code').to.equal(null);
      const killedAt = Date.now();
      while (existsSync(dir) && Date.now() - killedAt < SUPERVISOR_WITHIN_MS)
        await new Promise((r) => setTimeout(r, 50));
      await watch.stop();
      console.log(`      the supervisor removed the instance ${Date.now() - killedAt} ms after the kill`);
      expect(existsSync(dir), `${dir} after the run was killed`).to.equal(false);
      await cleanupAfter();
      expect(madeSince(before, hostSnapshot(), marks(watch.seen))).to.deep.equal([]);
      expect(watch.seen.ids.size, 'objects of the instance seen').to.be.greaterThan(0);
    });

    it('SIGHUP of run --isolated: it stops as on Ctrl-C, removes its instance, and cleanup finds the host as before', async () => {
      const before = hostSnapshot();
      const { running, kill, dir, watch, marks } = await isolatedMidRun();
      kill('SIGHUP');
      const hungUp = await running;
      await watch.stop();
      expect(hungUp.code, hungUp.stderr).to.equal(2);
      expect(hungUp.stderr).to.match(/SIGHUP: stopping cleanly/);
      expect(hungUp.stderr).to.match(/private instance removed in \d+ ms; nothing of it is left on the host/);
      expect(existsSync(dir)).to.equal(false);
      await cleanupAfter();
      expect(madeSince(before, hostSnapshot(), marks(watch.seen))).to.deep.equal([]);
    });

    it('a runtime restarted mid-run: the run ends, and after cleanup the host is as before', async () => {
      const restart = runtime.env.CRI_CONFORM_RESTART_CMD ?? '';
      const before = hostSnapshot();
      const watch = watchRuntime(endpoint);
      const running = runCli(['run', '--focus', FOCUS, '--report-dir', reportDir], runtime.env);
      await untilLabelledPod(endpoint, 60_000, 'cc-tear-04-');
      await waitUntil(() => watch.seen.runIds.size > 0, {
        withinMs: SEEN_WITHIN_MS,
        what: 'a pod of the run seen',
      });
      execFileSync('sh', ['-c', restart], { stdio: 'ignore', timeout: 60_000 });
      const run = await running;
      await watch.stop();
      expect(run.code, run.stdout + run.stderr).to.be.oneOf([1, 2]);
      await cleanupAfter();
      const marks: RunMarks = {
        tokens: new Set([...watch.seen.ids, ...watch.seen.netns, ...watch.seen.runIds]),
      };
      expect(watch.seen.runIds.size, 'the run seen (and its readiness proof)').to.be.at.least(1);
      expect(madeSince(before, hostSnapshot(), marks)).to.deep.equal([]);
    });
  });
