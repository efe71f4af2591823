/**
 * Proof without a cluster: the fleet image runs as the Sonobuoy plugin pod on real containerd (1.7 and 2.1
 * on CI). The image is imported into the throwaway containerd and run through CRI as the DaemonSet would
 * run it; a progress server of the test's own listens on the host (the pod uses the host network).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { CriClient } from '../../cri/client.js';
import { runLogDirectory } from '../../harness/host/pod-logs.js';
import { sonobuoyTarballOfDir } from '../../report/sonobuoy-tarball.test.helper.js';
import { labelledLeft, ROOT, runtimesUnderTest } from '../e2e-env.test.helper.js';
import { main } from '../main.js';
import { recordingIo } from '../test-io.test.helper.js';
import { progressServer, waitUntil } from './progress-server.test.helper.js';
import { ensureWorkerImage, importImage } from './worker-image.test.helper.js';
import {
  containerState,
  E2E_LABEL,
  podLog,
  readPluginSpec,
  removeWorkerPod,
  SONOBUOY_RESULTS_DIR,
  startWorkerPod,
  type WorkerPod,
} from './worker-pod.test.helper.js';

/** Three quick checks: CRI only, names, and an NRI hook check (so the NRI socket must be found too). */
const FOCUS = '^(IDEM-11|NAME-02|HOOK-01) ';
/** How long `done` may take from pod start: image already imported, three quick checks. */
const DONE_WITHIN_MS = 90_000;

for (const runtime of runtimesUnderTest()) {
  describe(`the Sonobuoy plugin pod on ${runtime.name}`, function () {
    this.timeout(5 * 60_000);
    const endpoint = runtime.env.CONTAINER_RUNTIME_ENDPOINT ?? '';
    const containerdDir = runtime.env.CRI_CONFORM_CONTAINERD_DIR ?? '';
    const spec = readPluginSpec();
    let client: CriClient;
    let hostDir: string;
    let pod: WorkerPod | undefined;

    before(async () => {
      // Cached in the instance's own dir: containerd-down.sh removes it with the instance.
      const image = await ensureWorkerImage(containerdDir);
      await importImage(containerdDir, image.archive);
      client = await CriClient.connect({ runtimeEndpoint: endpoint });
    });
    beforeEach(() => {
      hostDir = mkdtempSync(join(tmpdir(), 'cc-sono-'));
    });
    afterEach(async function () {
      if (pod) {
        if (this.currentTest?.state === 'failed') console.log(`pod log:\n${podLog(pod.logFile)}`);
        await removeWorkerPod(client, pod.podId);
        pod = undefined;
      }
      rmSync(hostDir, { recursive: true, force: true });
    });
    after(() => client?.close());

    /** Sonobuoy's own env for this plugin, plus the air-gapped overrides a registry-less node needs. */
    const pluginEnv = {
      CRI_CONFORM_TEST_IMAGE: runtime.env.CRI_CONFORM_TEST_IMAGE ?? '',
      CRI_CONFORM_PULL: 'never',
      CRI_CONFORM_FOCUS: FOCUS,
    };

    it('finds the runtime by itself, writes real verdicts, then done, posts progress, stays up, and leaves nothing', async () => {
      const progress = await progressServer();
      const started = performance.now();
      pod = await startWorkerPod(client, {
        spec,
        containerdDir,
        hostDir,
        progressPort: progress.port,
        nodeName: `node-${runtime.name}`,
        env: pluginEnv,
      });
      const done = join(pod.resultsDir, 'done');
      const junitFile = join(pod.resultsDir, 'junit.xml');
      // When done first shows, the JUnit it names must already be whole.
      let junitAtDone = '';
      await waitUntil(
        () => {
          try {
            statSync(done);
          } catch {
            return false;
          }
          junitAtDone = readFileSync(junitFile, 'utf8');
          return true;
        },
        {
          withinMs: DONE_WITHIN_MS,
          what: `${done} from the worker pod`,
          log: () => podLog(pod?.logFile ?? ''),
        },
      );
      const doneAfterMs = Math.round(performance.now() - started);
      await progress.close();

      expect(readFileSync(done, 'utf8')).to.equal(SONOBUOY_RESULTS_DIR);
      expect(junitAtDone).to.match(/<\/testsuites>\s*$/);
      expect(statSync(done).mtimeMs).to.be.at.least(statSync(junitFile).mtimeMs);

      const log = podLog(pod.logFile);
      expect(log).to.include(
        `picked containerd at host /run/containerd/containerd.sock (${spec.hostRun}/containerd/containerd.sock)`,
      );
      expect(log).to.include(`picked NRI at host /var/run/nri/nri.sock (${spec.hostVarRun}/nri/nri.sock)`);
      expect(log).to.match(/pause image localhost\/cri-conform\/pause:1, from the runtime's/);

      expect(schemaProblems(junitFile), 'JUnit against src/report/junit-jenkins.xsd').to.equal('');
      const junit = readFileSync(junitFile, 'utf8');
      const version = client.version.runtimeVersion;
      expect(junit).to.include('<property name="runtimeName" value="containerd"/>');
      expect(junit).to.include(`<property name="runtimeVersion" value="${version}"/>`);
      expect(junit).to.include(`<property name="nodeName" value="node-${runtime.name}"/>`);
      expect(junit).to.match(new RegExp(`<testsuite hostname="node-${runtime.name}"`));
      const cases = junit.match(/<testcase [^>]*>/g) ?? [];
      expect(cases.map((c) => / name="(\S+)/.exec(c)?.[1]).sort()).to.deep.equal([
        'HOOK-01',
        'IDEM-11',
        'NAME-02',
      ]);
      expect(junit, 'checks that reached no verdict').to.not.match(/<error |<skipped/);

      // What `sonobuoy retrieve` holds for this node becomes a matrix whose column is the node.
      const retrieved = join(hostDir, 'retrieve.tar.gz');
      writeFileSync(retrieved, sonobuoyTarballOfDir(`node-${runtime.name}`, pod.resultsDir));
      const reportIo = recordingIo();
      expect(await main(['node', 'cri-conform', 'report', retrieved], reportIo), reportIo.stderr()).to.equal(
        0,
      );
      expect(reportIo.stdout())
        .to.include(`A: containerd ${version}, NRI `)
        .and.to.include(`node node-${runtime.name},`);
      expect(reportIo.stdout()).to.match(/^HOOK-01 +MUST +pass$/m);

      expect(progress.updates.length, 'progress updates').to.be.at.least(4);
      for (const u of progress.updates) expect(u.total).to.equal(3);
      expect(progress.updates.map((u) => u.completed)).to.include.members([0, 1, 2, 3]);
      expect(progress.updates.at(-1)).to.include({ completed: 3, msg: 'complete' });

      expect(await containerState(client, pod.containerId)).to.equal('CONTAINER_RUNNING');
      expect(await labelledLeft(endpoint)).to.deep.equal({ pods: [], containers: [] });
      // The runtime wrote the checks' logs on the host; the worker removed them through its mount.
      const { properties } = JSON.parse(readFileSync(join(pod.resultsDir, 'results.json'), 'utf8')) as {
        properties: { runId: string };
      };
      expect(existsSync(runLogDirectory(properties.runId)), "the run's pod logs on the host").to.equal(false);

      // SIGTERM ends the sleep at once, well before the stop timeout would SIGKILL it.
      await client.call('StopContainer', { containerId: pod.containerId, timeout: '30' });
      const { status } = await client.call('ContainerStatus', {
        containerId: pod.containerId,
        verbose: false,
      });
      expect(status?.exitCode, 'exit code after SIGTERM').to.equal(0);
      await removeWorkerPod(client, pod.podId);
      pod = undefined;
      const { items } = await client.call('ListPodSandbox', { filter: null });
      expect(items.filter((p) => p.labels[E2E_LABEL] !== undefined)).to.deep.equal([]);
      record(runtime.name, { podStartToDoneMs: doneAfterMs, progressUpdates: progress.updates.length });
    });

    it('without the sockets mounted: one failing test case that says what to fix, done written, still up', async () => {
      const progress = await progressServer();
      pod = await startWorkerPod(client, {
        spec,
        containerdDir: undefined,
        hostDir,
        progressPort: progress.port,
        nodeName: `node-${runtime.name}`,
        env: pluginEnv,
      });
      const done = join(pod.resultsDir, 'done');
      await waitUntil(() => existsFile(done), {
        withinMs: DONE_WITHIN_MS,
        what: `${done} from the worker pod without sockets`,
        log: () => podLog(pod?.logFile ?? ''),
      });
      await progress.close();
      const junit = readFileSync(join(pod.resultsDir, 'junit.xml'), 'utf8');
      expect(junit.match(/<testcase /g)).to.have.length(1);
      expect(junit.match(/<failure /g)).to.have.length(1);
      expect(junit).to.match(/failure message="no CRI socket of the host under \/host/);
      expect(progress.updates.at(-1)?.failures).to.deep.equal(['SETUP cri-conform can run on this node']);
      expect(await containerState(client, pod.containerId)).to.equal('CONTAINER_RUNNING');
    });
  });
}

/** xmllint's complaints about the file ('' when valid); CI installs xmllint (scripts/install-deps.sh). */
function schemaProblems(file: string): string {
  const r = spawnSync('xmllint', ['--noout', '--schema', join(ROOT, 'src/report/junit-jenkins.xsd'), file], {
    encoding: 'utf8',
  });
  if (r.error) return process.env.CI === 'true' ? `xmllint: ${r.error.message}` : '';
  return r.status === 0 ? '' : `${r.stdout}${r.stderr}`;
}

function existsFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Measurements, not assertions: reports/sonobuoy-pod.json, one entry per runtime. */
function record(runtime: string, values: Record<string, number>): void {
  const file = join(ROOT, 'reports/sonobuoy-pod.json');
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    // first entry
  }
  all[runtime] = { ...values, at: new Date().toISOString() };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
}
