/**
 * The fleet default on real containerd (1.7 and 2.1 on CI), with the kubelet double attached to the
 * node's runtime and owning the plugin pod as a kubelet owns a DaemonSet's pod: the worker pod starts a
 * private instance of the node's runtime from the node's binary, runs an injector, a [Restart], a held-hook
 * and a [Node] check on it, names its results directory in `done`, and once the pod is deleted the host
 * holds nothing of the instance; the double never saw a pod of cri-conform. A pod killed mid-run leaves
 * its instance and its checks' container logs behind, and the next worker pod removes both before it
 * starts its own.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type RunningDouble, startDouble } from '../../../fixtures/kubelet-double/process.test.helper.js';
import { CriClient } from '../../cri/client.js';
import { POD_LOG_ROOT_AS_ROOT } from '../../harness/host/pod-logs.js';
import { labelledLeft, runCli, runtimesUnderTest } from '../e2e-env.test.helper.js';
import { hostSnapshot, instanceMarks, madeSince } from '../host-snapshot.test.helper.js';
import {
  hostTraces,
  instanceNames,
  NODE_ONLY_IMAGES,
  newInstanceDir,
  tagNodeOnlyImages,
  untilCopyHasPod,
  watchInstance,
} from '../instance-traces.test.helper.js';
import { progressServer, waitUntil } from './progress-server.test.helper.js';
import { ensureWorkerImage, importImage } from './worker-image.test.helper.js';
import {
  peakMemoryMiB,
  podLog,
  readPluginSpec,
  removeWorkerPod,
  SONOBUOY_RESULTS_DIR,
  startWorkerPod,
  type WorkerPod,
} from './worker-pod.test.helper.js';

/** An injector check (the slow runtime), a [Restart] check, a held NRI hook and a [Node] check. */
const FOCUS = '^(IDEM-01|IDEM-13|HOOK-03|TEAR-11) ';
const DONE_WITHIN_MS = 240_000;
/** Where the pod sees the node's CRI socket: the plugin's mount of the host's /run. */
const POD_ENDPOINT = 'unix:///host/run/containerd/containerd.sock';

interface Results {
  properties: {
    isolated: { dir: string; network: { bridge: string }; images: string; leftovers: string[] } | null;
  };
  results: Array<{ id: string; verdict: string; message: string | null }>;
}

for (const runtime of runtimesUnderTest()) {
  describe(`the Sonobuoy plugin pod on a private instance of ${runtime.name}, beside the kubelet double`, function () {
    this.timeout(8 * 60_000);
    const endpoint = runtime.env.CONTAINER_RUNTIME_ENDPOINT ?? '';
    const containerdDir = runtime.env.CRI_CONFORM_CONTAINERD_DIR ?? '';
    const spec = readPluginSpec();
    const podUids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    let client: CriClient;
    let double: RunningDouble;
    let hostDir: string;
    let untag: (() => void) | undefined;
    const pods: WorkerPod[] = [];
    const progressServers: Array<{ close(): Promise<void> }> = [];

    before(async () => {
      const image = await ensureWorkerImage(containerdDir);
      await importImage(containerdDir, image.archive);
      client = await CriClient.connect({ runtimeEndpoint: endpoint });
      untag = tagNodeOnlyImages(endpoint, runtime.env);
      double = await startDouble(runtime.env, [
        '--period-ms',
        '500',
        '--gc-period-ms',
        '2000',
        ...podUids.flatMap((uid) => ['--api-pod-uid', uid]),
      ]);
    });
    beforeEach(() => {
      hostDir = mkdtempSync(join(tmpdir(), 'cc-sono-iso-'));
    });
    afterEach(async function () {
      for (const pod of pods.splice(0)) {
        if (this.currentTest?.state === 'failed') console.log(`pod log:\n${podLog(pod.logFile)}`);
        await removeWorkerPod(client, pod.podId).catch(() => undefined);
      }
      for (const server of progressServers.splice(0)) await server.close();
      rmSync(hostDir, { recursive: true, force: true });
    });
    after(async () => {
      untag?.();
      await double?.stop();
      client?.close();
    });

    // Images only the node holds (tagNodeOnlyImages): the private instance must copy them from the node.
    const pluginEnv = {
      CRI_CONFORM_TEST_IMAGE: NODE_ONLY_IMAGES.testImage,
      CRI_CONFORM_PAUSE_IMAGE: NODE_ONLY_IMAGES.pauseImage,
      CRI_CONFORM_PULL: 'never',
      CRI_CONFORM_FOCUS: FOCUS,
      CRI_CONFORM_LEVEL: 'all',
    };

    async function startPod(uid: string, env: Record<string, string> = {}): Promise<WorkerPod> {
      const progress = await progressServer();
      progressServers.push(progress);
      const pod = await startWorkerPod(client, {
        spec,
        containerdDir,
        hostDir,
        progressPort: progress.port,
        nodeName: `node-${runtime.name}`,
        env: { ...pluginEnv, ...env },
        uid,
      });
      pods.push(pod);
      return pod;
    }

    /** A worker pod on TEAR-04, once its private instance holds a pod: the instance's dir, watched. */
    async function podMidRun(uid: string) {
      const before = instanceNames();
      const pod = await startPod(uid, { CRI_CONFORM_FOCUS: '^TEAR-04 ' });
      const dir = await newInstanceDir(POD_ENDPOINT, before, 60_000);
      const watch = watchInstance(dir);
      const { network } = JSON.parse(readFileSync(join(dir, 'instance.json'), 'utf8')) as {
        network: { number: number; bridge: string };
      };
      // The run's id, which names its log folder, from a pod of TEAR-04 itself: doctor's proof pods come
      // first, under a run id of their own whose folder the proof removes when it ends.
      const runId = await untilCopyHasPod(dir, 60_000, 'cc-tear-04-');
      await waitUntil(() => watch.seen.runIds.has(runId), {
        withinMs: 10_000,
        what: 'a pod of the run seen',
      });
      return { pod, dir, watch, network, bridge: network.bridge, runId };
    }

    /** Stops the pod's container with the grace a kubelet gives, then its sandbox, and removes it. */
    async function deletePod(pod: WorkerPod, graceS: number): Promise<void> {
      await client.call('StopContainer', { containerId: pod.containerId, timeout: String(graceS) });
      await removeWorkerPod(client, pod.podId);
      pods.splice(pods.indexOf(pod), 1);
    }

    it('starts the private instance, runs the checks on it, uploads the results directory, and leaves nothing once the pod is deleted', async () => {
      const before = instanceNames();
      const pod = await startPod(podUids[0] ?? '');
      const dir = await newInstanceDir(POD_ENDPOINT, before, 60_000);
      const watch = watchInstance(dir);
      const done = join(pod.resultsDir, 'done');
      await waitUntil(() => existsSync(done), {
        withinMs: DONE_WITHIN_MS,
        what: `${done} from the worker pod`,
        log: () => podLog(pod.logFile),
      });
      await watch.stop();
      expect(readFileSync(done, 'utf8')).to.equal(SONOBUOY_RESULTS_DIR);
      for (const f of ['junit.xml', 'results.json', 'report.html'])
        expect(existsSync(join(pod.resultsDir, f)), f).to.equal(true);
      const report = JSON.parse(readFileSync(join(pod.resultsDir, 'results.json'), 'utf8')) as Results;
      const verdicts = report.results.map((r) => `${r.id} ${r.verdict}`).sort();
      expect(
        verdicts.filter((v) => / (error|skipped)$/.test(v)),
        JSON.stringify(report.results),
      ).to.deep.equal([]);
      expect(verdicts.map((v) => v.split(' ')[0])).to.deep.equal([
        'HOOK-03',
        'IDEM-01',
        'IDEM-13',
        'TEAR-11',
      ]);
      const isolated = report.properties.isolated;
      expect(isolated?.dir).to.equal(dir);
      expect(isolated?.images).to.equal(
        `test image ${NODE_ONLY_IMAGES.testImage} copied from the node's runtime; sandbox image ${NODE_ONLY_IMAGES.pauseImage} copied from the node's runtime`,
      );
      expect(isolated?.leftovers).to.deep.equal([]);
      expect(watch.seen.ids.size, 'objects of the instance seen while it ran').to.be.greaterThan(0);
      const log = podLog(pod.logFile);
      expect(log).to.match(/running on a private instance of the node's runtime/);
      expect(log).to.match(/private instance removed in \d+ ms; nothing of it is left on the host/);

      console.log(
        `      the worker pod's memory peaked at ${await peakMemoryMiB(client, pod.containerId)} MiB`,
      );
      await deletePod(pod, spec.terminationGracePeriodSeconds);
      expect(hostTraces(dir, isolated?.network.bridge ?? '', watch.seen)).to.deep.equal([]);
      expect(await labelledLeft(endpoint), "cri-conform's objects on the node's runtime").to.deep.equal({
        pods: [],
        containers: [],
      });
      const kills = double.entries.filter((e) => e.action === 'kill-orphan' || e.action.startsWith('gc-'));
      expect(kills, 'what the kubelet double stopped or removed').to.deep.equal([]);
    });

    it('a pod deleted mid-run removes its instance within the grace period, and after cleanup the host is as before', async () => {
      const before = hostSnapshot();
      const { pod, dir, watch, network, bridge } = await podMidRun(podUids[3] ?? '');
      const grace = String(spec.terminationGracePeriodSeconds);
      await client.call('StopContainer', { containerId: pod.containerId, timeout: grace });
      const { status } = await client.call('ContainerStatus', {
        containerId: pod.containerId,
        verbose: false,
      });
      // 137 would be the SIGKILL at the end of the grace period: the worker ended by itself after SIGTERM.
      expect(status?.exitCode, podLog(pod.logFile)).to.not.equal(137);
      expect(podLog(pod.logFile)).to.match(
        /private instance removed in \d+ ms; nothing of it is left on the host/,
      );
      await deletePod(pod, spec.terminationGracePeriodSeconds);
      await watch.stop();
      expect(hostTraces(dir, bridge, watch.seen)).to.deep.equal([]);
      for (const flags of [['--isolated'], []]) {
        const cleanup = await runCli(['cleanup', ...flags, '-r', endpoint], runtime.env);
        expect(cleanup.code, cleanup.stdout + cleanup.stderr).to.equal(0);
      }
      const marks = instanceMarks(dir, network, watch.seen);
      expect(madeSince(before, hostSnapshot(), marks)).to.deep.equal([]);
    });

    it('a pod killed mid-run leaves its instance and logs behind; the next worker pod removes them first', async () => {
      const logsBefore = runLogFolders();
      const { pod: killed, dir, watch, bridge, runId } = await podMidRun(podUids[1] ?? '');
      // No grace: the kubelet's SIGKILL after its grace period, before the worker removed anything.
      await deletePod(killed, 0);
      await watch.stop();
      const left = hostTraces(dir, bridge, watch.seen);
      console.log(`      a killed worker pod left: ${left.join('; ')}`);
      expect(left, 'a killed pod leaves its instance').to.not.deep.equal([]);
      // Others' runs on this host make folders there too: the killed run's is the one named by its run id.
      const killedLogs = runLogFolders().filter((name) => !logsBefore.includes(name) && name === runId);
      expect(killedLogs, 'a killed pod leaves its run log folder').to.have.length(1);

      const next = await startPod(podUids[2] ?? '', { CRI_CONFORM_FOCUS: '^IDEM-11 ' });
      await waitUntil(() => existsSync(join(next.resultsDir, 'done')), {
        withinMs: DONE_WITHIN_MS,
        what: 'done from the next worker pod',
        log: () => podLog(next.logFile),
      });
      expect(podLog(next.logFile)).to.include(`removed the private instance ${dir} a killed run left`);
      const killedLogDir = join(POD_LOG_ROOT_AS_ROOT, killedLogs[0] ?? '');
      expect(podLog(next.logFile)).to.include(`removed the pod logs ${killedLogDir} a killed run left`);
      expect(existsSync(killedLogDir), `${killedLogDir} after the next worker pod`).to.equal(false);
      expect(hostTraces(dir, bridge, watch.seen)).to.deep.equal([]);
      await deletePod(next, 30);
      expect(double.entries.filter((e) => e.action === 'kill-orphan')).to.deep.equal([]);
    });
  });
}

function runLogFolders(): string[] {
  return existsSync(POD_LOG_ROOT_AS_ROOT) ? readdirSync(POD_LOG_ROOT_AS_ROOT) : [];
}
