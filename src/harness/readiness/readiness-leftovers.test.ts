import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type FakeRuntime, startFakeRuntime } from '../check/fake-runtime.test.helper.js';
import { POD_NAMESPACE, RUN_LABEL } from '../core/labels.js';
import { keepLostIds } from '../host/lost-ids.js';
import { claimRunLogs, ownIdsRecorder, removeRunLogs, runLogDirectory } from '../host/pod-logs.js';
import { currentOwner } from '../host/run-owner.js';
import { standInShim } from '../runtime/stand-in-shim.test.helper.js';
import { leftoversFinding } from './readiness-leftovers.js';

describe("doctor's look for what ended runs left", () => {
  let fake: FakeRuntime;
  const children: ChildProcess[] = [];
  const runs = ['ended', 'running', 'lost', 'crio'].map((r) => `test-leftovers-${r}-${process.pid}`) as [
    string,
    string,
    string,
    string,
  ];
  const [ended, running, lost, crio] = runs;
  beforeEach(async () => {
    fake = await startFakeRuntime();
  });
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    for (const run of runs) {
      removeRunLogs(run);
      keepLostIds(run, [], fake.endpoint);
    }
    await fake.close();
  });
  const pod = (run: string, name = 'cc-idem-01-x', namespace = POD_NAMESPACE) =>
    fake.publish({
      metadata: { name, namespace, attempt: 0 },
      labels: { [RUN_LABEL]: run },
      state: 'SANDBOX_READY',
    });

  it('finds nothing on a runtime without them', async () => {
    pod(running);
    claimRunLogs(running);
    expect(await leftoversFinding(fake.client, fake.endpoint)).to.deep.equal({
      severity: 'ok',
      what: 'no leftovers of ended cri-conform runs',
    });
  });

  it("names the pods of runs no longer running, and not a running run's nor a pod with only the label", async () => {
    claimRunLogs(ended, { ...currentOwner(), pid: spawnSync('true').pid as number });
    claimRunLogs(running);
    pod(ended);
    pod(ended, 'cc-idem-02-y');
    pod(running);
    pod(ended, 'api-7d9', 'payments');
    const finding = await leftoversFinding(fake.client, fake.endpoint);
    expect(finding.severity).to.equal('warn');
    expect(finding.what).to.equal(
      `leftovers of ended cri-conform runs: 2 pods of 1 run no longer running (${ended})`,
    );
    expect(finding.fix).to.equal(
      `run \`cri-conform cleanup -r ${fake.endpoint}\` before the node takes workloads`,
    );
  });

  it("counts the processes whose ids a final sweep kept for this runtime, not another runtime's", async () => {
    const [mine, other] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
    children.push(await standInShim(mine), await standInShim(other));
    keepLostIds(lost, [mine], fake.endpoint);
    keepLostIds(crio, [other], 'unix:///var/run/crio/crio.sock');
    const finding = await leftoversFinding(fake.client, fake.endpoint);
    expect(finding.what).to.equal(
      'leftovers of ended cri-conform runs: 1 process of their sandboxes or containers that the CRI no longer lists, still running',
    );
    keepLostIds(crio, [], 'unix:///var/run/crio/crio.sock');
  });

  it('counts the processes of ids a killed run recorded as its own and the CRI no longer lists, not of those it lists', async () => {
    const lostShim = randomBytes(32).toString('hex');
    // A pod the CRI still lists: its processes are the pod's, which the count of pods covers.
    const listedPod = fake.publish({
      metadata: { name: 'other', namespace: 'default', attempt: 0 },
      labels: {},
      state: 'SANDBOX_READY',
    });
    children.push(await standInShim(lostShim), await standInShim(listedPod));
    claimRunLogs(lost, { ...currentOwner(), pid: spawnSync('true').pid as number });
    const record = ownIdsRecorder(lost, fake.endpoint);
    record(lostShim);
    record(listedPod);
    const finding = await leftoversFinding(fake.client, fake.endpoint);
    expect(finding.what).to.equal(
      'leftovers of ended cri-conform runs: 1 process of their sandboxes or containers that the CRI no longer lists, still running',
    );
    fake.pods.clear();
  });

  it("names the shim bundles of kept ids no process names, where containerd's verbose Status says they are", async function () {
    // Doctor looks at the node's host as root only.
    if (process.getuid?.() !== 0) this.skip();
    const id = randomBytes(32).toString('hex');
    const state = mkdtempSync(join(tmpdir(), 'cc-containerd-state-'));
    try {
      const bundle = join(state, 'io.containerd.runtime.v2.task', 'k8s.io', id);
      mkdirSync(bundle, { recursive: true });
      const config = JSON.stringify({ stateDir: join(state, 'io.containerd.grpc.v1.cri') });
      fake.override('Status', () => ({ runtimeHandlers: [], info: { config } }));
      keepLostIds(lost, [id], fake.endpoint);
      const finding = await leftoversFinding(fake.client, fake.endpoint);
      expect(finding.what).to.equal(
        `leftovers of ended cri-conform runs: 1 shim bundle or runc state directory of their containers (${bundle})`,
      );
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });

  it('names the records the runtime keeps of ended runs that the CRI no longer lists, and says only --native removes them', async () => {
    claimRunLogs(ended, { ...currentOwner(), pid: spawnSync('true').pid as number });
    claimRunLogs(running);
    const recorded = [
      { id: 'a0eb70f61ce0348540e7b67fd', runId: ended },
      { id: 'b1fc81f72df1459651f8c78fe', runId: running },
    ];
    const finding = await leftoversFinding(fake.client, fake.endpoint, async () => recorded);
    expect(finding).to.deep.equal({
      severity: 'warn',
      what: 'leftovers of ended cri-conform runs: 1 container the runtime still records that the CRI no longer lists (a0eb70f61ce03)',
      fix: `run \`cri-conform cleanup --native -r ${fake.endpoint}\` before the node takes workloads`,
    });
  });

  it('names the folder of a run killed with nothing else of it left, which only cleanup removes', async () => {
    claimRunLogs(ended, { ...currentOwner(), pid: spawnSync('true').pid as number });
    claimRunLogs(running);
    expect(await leftoversFinding(fake.client, fake.endpoint)).to.deep.equal({
      severity: 'warn',
      what: `leftovers of ended cri-conform runs: the pod-log folder of 1 run no longer running (${runLogDirectory(ended)})`,
      fix: `run \`cri-conform cleanup -r ${fake.endpoint}\` before the node takes workloads`,
    });
  });
});
