/**
 * The worker in process against the reference runtime, seen as a Sonobuoy plugin pod sees the node: its
 * sockets under a host root, a results dir, a progress port and a node name. The same contract runs in a
 * real pod on real containerd in worker-pod.e2e.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { expect } from 'chai';
import { type ReferenceRuntime, startReferenceRuntime } from '../../../fixtures/reference/start.js';
import { main } from '../main.js';
import { recordingIo } from '../test-io.test.helper.js';
import { closedPort, progressServer, waitUntil } from './progress-server.test.helper.js';

const FOCUS = '^(IDEM-11|NAME-02|HOOK-01) ';

/**
 * Links the host's usual socket paths to the reference runtime's, which lives inside the host root: the
 * links are relative, as links are followed within the root.
 */
function hostRootFor(host: string, runtime: ReferenceRuntime): string {
  const link = (hostPath: string, target: string) => {
    const at = join(host, hostPath);
    mkdirSync(dirname(at), { recursive: true });
    symlinkSync(relative(dirname(at), target), at);
  };
  link('run/containerd/containerd.sock', join(runtime.dir, 'cri.sock'));
  link('var/run/nri/nri.sock', join(runtime.dir, 'nri.sock'));
  return host;
}

/** Starts the worker, waits for `done`, checks it is still waiting, then sends it "SIGTERM". */
async function runWorker(env: Record<string, string>, resultsDir: string) {
  const stop = new AbortController();
  const io = recordingIo(env, stop.signal);
  let exited = false;
  const exit = main(['node', 'cri-conform', 'run', '--sonobuoy'], io).finally(() => {
    exited = true;
  });
  await Promise.race([
    waitUntil(() => existsSync(join(resultsDir, 'done')), { withinMs: 50_000, what: 'done' }),
    exit,
  ]);
  await new Promise((r) => setImmediate(r));
  const aliveAfterDone = !exited;
  stop.abort(new Error('interrupted by SIGTERM'));
  const code = await exit;
  return { code, aliveAfterDone, stdout: io.stdout(), stderr: io.stderr() };
}

describe('cri-conform run --sonobuoy (a Sonobuoy worker against the reference runtime)', function () {
  this.timeout(60_000);
  let root: string;
  let runtime: ReferenceRuntime;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'cc-'));
    runtime = await startReferenceRuntime({ dir: join(root, 'host', 'ref') });
  });
  after(async () => {
    await runtime?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('finds the runtime under the host root, posts progress after every check, writes node-tagged JUnit, then done, and waits for SIGTERM', async () => {
    const progress = await progressServer();
    const results = join(root, 'results');
    const run = await runWorker(
      {
        SONOBUOY_RESULTS_DIR: results,
        SONOBUOY_PROGRESS_PORT: String(progress.port),
        NODE_NAME: 'node-7',
        CRI_CONFORM_HOST_ROOT: hostRootFor(join(root, 'host'), runtime),
        CRI_CONFORM_TEST_IMAGE: runtime.env.CRI_CONFORM_TEST_IMAGE ?? '',
        CRI_CONFORM_PAUSE_IMAGE: runtime.env.CRI_CONFORM_PAUSE_IMAGE ?? '',
        CRI_CONFORM_FOCUS: FOCUS,
        // The reference runtime is no containerd to copy: the run shares it, as beside a kubelet.
        CRI_CONFORM_ISOLATED: 'false',
      },
      results,
    );
    await progress.close();
    expect(run.aliveAfterDone, 'still waiting after done').to.equal(true);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.match(/picked containerd at host \/run\/containerd\/containerd\.sock/);
    expect(run.stderr).to.match(/picked NRI at host \/var\/run\/nri\/nri\.sock/);
    expect(run.stderr, 'a fleet run shares the runtime with the kubelet that started its pod').to.match(
      /running beside it, so a check whose pods it stops ends in ERROR "disturbed"/,
    );

    expect(readFileSync(join(results, 'done'), 'utf8')).to.equal(results);
    expect(existsSync(join(results, 'results.json')), 'results.json beside the JUnit').to.equal(true);
    const json = JSON.parse(readFileSync(join(results, 'results.json'), 'utf8'));
    expect(json.properties.node, 'the node, not the pod, in results.json').to.equal('node-7');
    expect(existsSync(join(results, 'report.html')), 'the HTML report beside the JUnit').to.equal(true);
    const junit = readFileSync(join(results, 'junit.xml'), 'utf8');
    const cases = junit.match(/<testcase /g) ?? [];
    expect(cases).to.have.length(3);
    expect(junit).to.not.match(/<failure|<error/);
    expect(junit.match(/<testsuite hostname="node-7"/g)).to.have.length(3);
    expect(junit.match(/<property name="nodeName" value="node-7"\/>/g)).to.have.length(3);

    // One update at the start, one after each check, one at the end; each is the whole state.
    expect(progress.updates).to.have.length(5);
    expect(progress.updates.map((u) => u.completed)).to.deep.equal([0, 1, 2, 3, 3]);
    for (const u of progress.updates) {
      expect(Object.keys(u).sort()).to.deep.equal(['completed', 'errors', 'failures', 'msg', 'total']);
      expect(u.total).to.equal(3);
    }
    expect(progress.updates.at(-1)?.msg).to.equal('complete');
  });

  it("runs on a private instance of the node's runtime by default, and says why it cannot when the node's runtime is no containerd", async () => {
    const results = join(root, 'results-isolated');
    const run = await runWorker(
      {
        SONOBUOY_RESULTS_DIR: results,
        SONOBUOY_PROGRESS_PORT: '0',
        NODE_NAME: 'node-6',
        CRI_CONFORM_HOST_ROOT: join(root, 'host'),
        CRI_CONFORM_TEST_IMAGE: runtime.env.CRI_CONFORM_TEST_IMAGE ?? '',
        CRI_CONFORM_PAUSE_IMAGE: runtime.env.CRI_CONFORM_PAUSE_IMAGE ?? '',
        CRI_CONFORM_FOCUS: FOCUS,
      },
      results,
    );
    expect(run.code).to.equal(2);
    expect(run.stderr).to.match(/running on a private instance of the node's runtime/);
    const junit = readFileSync(join(results, 'junit.xml'), 'utf8');
    expect(junit.match(/<testcase /g)).to.have.length(1);
    expect(junit).to.match(
      /failure message="--isolated: the process serving .* neither containerd nor CRI-O/,
    );
  });

  it('turns a node without runtime sockets into one failing test case that says what to fix, writes done, and keeps waiting', async () => {
    const results = join(root, 'results-empty');
    const emptyHost = mkdtempSync(join(tmpdir(), 'cc-'));
    // Nothing listens on the progress port: the results must come out whole regardless.
    const port = await closedPort();
    try {
      const run = await runWorker(
        {
          SONOBUOY_RESULTS_DIR: results,
          SONOBUOY_PROGRESS_PORT: String(port),
          NODE_NAME: 'node-8',
          CRI_CONFORM_HOST_ROOT: emptyHost,
        },
        results,
      );
      expect(run.aliveAfterDone, 'still waiting after done').to.equal(true);
      expect(run.code).to.equal(2);
      expect(run.stderr).to.match(/progress to 127\.0\.0\.1:\d+\/progress not delivered \(ECONNREFUSED\)/);
      const junit = readFileSync(join(readFileSync(join(results, 'done'), 'utf8'), 'junit.xml'), 'utf8');
      expect(junit.match(/<testcase /g)).to.have.length(1);
      expect(junit.match(/<failure /g)).to.have.length(1);
      expect(junit).to.match(/<testsuite name="setup" hostname="node-8"/);
      expect(junit).to.match(
        /failure message="no CRI socket of the host under [^"]+ \(looked for containerd/,
      );
      expect(junit).to.match(/mount the host&apos;s \/run and \/var\/run/);
    } finally {
      rmSync(emptyHost, { recursive: true, force: true });
    }
  });

  it('reports a bad plugin setting as the failing test case too', async () => {
    const results = join(root, 'results-bad');
    const run = await runWorker(
      { SONOBUOY_RESULTS_DIR: results, SONOBUOY_PROGRESS_PORT: 'eighty', NODE_NAME: 'node-9' },
      results,
    );
    expect(run.code).to.equal(2);
    const junit = readFileSync(join(results, 'junit.xml'), 'utf8');
    expect(junit).to.match(/failure message="SONOBUOY_PROGRESS_PORT &quot;eighty&quot; is not a port/);
  });
});
