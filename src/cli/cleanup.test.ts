import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type FakeRuntime, startFakeRuntime } from '../harness/check/fake-runtime.test.helper.js';
import { RUN_LABEL } from '../harness/core/labels.js';
import { idsFileHeader } from '../harness/core/own-ids.js';
import { keepLostIds, keptLostIds, LOST_IDS_ROOT, lostIdsFile } from '../harness/host/lost-ids.js';
import {
  claimRunLogs,
  OWN_IDS_FILE,
  removeRunLogs,
  runLogDirectory,
  runsOfOtherProcessesOn,
} from '../harness/host/pod-logs.js';
import { readProcStat } from '../harness/host/proc.js';
import { currentOwner } from '../harness/host/run-owner.js';
import { alive, exited, standInShim } from '../harness/runtime/stand-in-shim.test.helper.js';
import { skipBecause } from '../skip-reason.test.helper.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

describe('cleanup (fake CRI)', () => {
  let fake: FakeRuntime;
  const controlDirs: string[] = [];
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => {
    for (const dir of controlDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    return fake.close();
  });

  /** An injector control dir in which a killed run left a check's claim. */
  function claimedDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'cc-slow-'));
    controlDirs.push(dir);
    mkdirSync(join(dir, 'pods', 'cc-idem-01-'), { recursive: true });
    writeFileSync(join(dir, 'pods', 'cc-idem-01-', 'delay-ms'), '1500\n');
    return dir;
  }

  it('refuses a --run-id that is empty or no run id, which would widen or miss what it removes', async () => {
    for (const runId of ['', '../../etc']) {
      const io = recordingIo();
      expect(
        await main(['node', 'cri-conform', 'cleanup', '-r', fake.endpoint, '--run-id', runId], io),
      ).to.equal(2);
      expect(io.stderr()).to.equal(
        `cri-conform: --run-id "${runId}" is not a run id; copy it from a report's runId (e.g. 202612070504-3a3d94), or leave --run-id out to clean up every run\n`,
      );
    }
  });

  it("removes labelled pods and the injectors' per-check claims a killed run left", async function () {
    // Claims in use by a run alive on this runtime are rightly left alone: nothing to see here then.
    const alive = runsOfOtherProcessesOn(fake.endpoint);
    if (alive.length > 0)
      skipBecause(this, `cri-conform runs are alive on this machine (${alive.join(', ')})`);
    fake.publish({
      metadata: { name: 'cc-idem-01-left', namespace: 'cri-conform', attempt: 0 },
      labels: { [RUN_LABEL]: 'killed' },
      state: 'SANDBOX_READY',
    });
    const [runtimeDir, cniDir] = [claimedDir(), claimedDir()];
    const io = recordingIo({ CRI_CONFORM_SLOW_RUNTIME_DIR: runtimeDir, CRI_CONFORM_SLOW_CNI_DIR: cniDir });
    const code = await main(['node', 'cri-conform', 'cleanup', '-r', fake.endpoint], io);
    expect(code, io.stderr()).to.equal(0);
    expect(fake.pods.size).to.equal(0);
    expect(existsSync(join(runtimeDir, 'pods'))).to.equal(false);
    expect(existsSync(join(cniDir, 'pods'))).to.equal(false);
    expect(io.stdout()).to.contain(`released 1 injector claims in ${runtimeDir}: cc-idem-01-`);
  });

  it('leaves the claims alone while a run on this runtime is alive (its checks’ settings in use), not one on another', async function () {
    const alive = runsOfOtherProcessesOn(fake.endpoint);
    if (alive.length > 0)
      skipBecause(this, `cri-conform runs are alive on this machine (${alive.join(', ')})`);
    const live = `test-live-claims-${process.pid}`;
    const other = spawn('sleep', ['60'], { stdio: 'ignore' });
    await new Promise((resolve) => other.once('spawn', resolve));
    const owner = {
      ...currentOwner(),
      pid: other.pid as number,
      startTime: readProcStat(other.pid as number)?.startTime ?? '',
    };
    const runtimeDir = claimedDir();
    const cleanup = async () => {
      const io = recordingIo({ CRI_CONFORM_SLOW_RUNTIME_DIR: runtimeDir });
      expect(await main(['node', 'cri-conform', 'cleanup', '-r', fake.endpoint], io), io.stderr()).to.equal(
        0,
      );
      return io.stdout();
    };
    try {
      claimRunLogs(live, owner, { endpoint: fake.endpoint, claimedAt: Date.now() });
      const said = await cleanup();
      expect(existsSync(join(runtimeDir, 'pods', 'cc-idem-01-'))).to.equal(true);
      expect(said).to.match(
        /left the injector claims alone: cri-conform runs on this runtime are alive \(.*\)/,
      );
      expect(said).to.contain(live);
      claimRunLogs(live, owner, { endpoint: 'unix:///run/elsewhere/cri.sock', claimedAt: Date.now() });
      expect(await cleanup()).to.contain(`released 1 injector claims in ${runtimeDir}`);
    } finally {
      other.kill('SIGKILL');
      removeRunLogs(live);
    }
  });

  for (const flags of [[], ['--isolated']]) {
    it(`leaves a foreign pod labelled cri-conform.io/run untouched: cleanup ${flags.join(' ')}`, async () => {
      const foreign = fake.publish({
        metadata: { name: 'api-7d9', namespace: 'payments', attempt: 0 },
        labels: { [RUN_LABEL]: 'x' },
        state: 'SANDBOX_READY',
      });
      const calls: string[] = [];
      for (const method of ['StopPodSandbox', 'RemovePodSandbox'])
        fake.override(method, (req) => {
          calls.push(`${method} ${(req as { podSandboxId: string }).podSandboxId}`);
          return {};
        });
      try {
        const io = recordingIo();
        const code = await main(['node', 'cri-conform', 'cleanup', ...flags, '-r', fake.endpoint], io);
        expect(code, io.stderr()).to.equal(0);
        expect(calls).to.deep.equal([]);
        expect(fake.pods.get(foreign)?.state).to.equal('SANDBOX_READY');
        expect(io.stdout()).to.contain(`left alone pod payments/api-7d9 (${foreign})`);
      } finally {
        for (const method of ['StopPodSandbox', 'RemovePodSandbox']) fake.override(method, undefined);
        fake.pods.delete(foreign);
      }
    });
  }

  it('removes the pod logs of a killed run it finds no object of, and keeps those of a running run', async () => {
    const killed = `test-killed-${process.pid}`;
    const running = `test-running-${process.pid}`;
    const exited = spawnSync('true').pid as number;
    claimRunLogs(killed, { ...currentOwner(), pid: exited });
    claimRunLogs(running);
    try {
      const io = recordingIo();
      const code = await main(['node', 'cri-conform', 'cleanup', '-r', fake.endpoint], io);
      expect(code, io.stderr()).to.equal(0);
      expect(existsSync(runLogDirectory(killed))).to.equal(false);
      expect(io.stdout()).to.contain(`  ${runLogDirectory(killed)}\n`);
      expect(existsSync(runLogDirectory(running))).to.equal(true);
    } finally {
      removeRunLogs(killed);
      removeRunLogs(running);
    }
  });

  it('leaves alone the pods of a run still running, which removes its own, and refuses --run-id of one', async () => {
    const running = `test-running-pods-${process.pid}`;
    const killed = `test-killed-pods-${process.pid}`;
    claimRunLogs(running);
    claimRunLogs(killed, { ...currentOwner(), pid: spawnSync('true').pid as number });
    const podOf = (run: string) =>
      fake.publish({
        metadata: { name: `cc-idem-01-${run}`, namespace: 'cri-conform', attempt: 0 },
        labels: { [RUN_LABEL]: run },
        state: 'SANDBOX_READY',
      });
    const [live, dead] = [podOf(running), podOf(killed)];
    try {
      const io = recordingIo();
      expect(await main(['node', 'cri-conform', 'cleanup', '-r', fake.endpoint], io), io.stderr()).to.equal(
        0,
      );
      expect([fake.pods.has(live), fake.pods.has(dead)]).to.deep.equal([true, false]);
      expect(io.stdout()).to.contain(
        `left alone the pods of a run still running (${running}): each removes its own as it ends\n`,
      );
      expect(existsSync(runLogDirectory(running))).to.equal(true);
      const one = recordingIo();
      const args = ['node', 'cri-conform', 'cleanup', '-r', fake.endpoint, '--run-id', running];
      expect(await main(args, one)).to.equal(2);
      expect(one.stderr()).to.equal(
        `cri-conform: run ${running} is still running, and removes its own pods as it ends: stop it (Ctrl-C or SIGTERM), or run cleanup once it has ended or was killed\n`,
      );
      expect(fake.pods.has(live)).to.equal(true);
    } finally {
      fake.pods.delete(live);
      removeRunLogs(running);
      removeRunLogs(killed);
    }
  });

  /** A run killed after it recorded `id` as its own, and a process naming the id, as a lost shim would. */
  async function killedRunWithShim(
    name: string,
    id: string,
    endpoint = fake.endpoint,
  ): Promise<ChildProcess> {
    claimRunLogs(name, { ...currentOwner(), pid: spawnSync('true').pid as number });
    writeFileSync(join(runLogDirectory(name), OWN_IDS_FILE), `${idsFileHeader(endpoint)}${id}\n`);
    const shim = await standInShim(id);
    shims.push(shim);
    return shim;
  }
  const shims: ChildProcess[] = [];
  afterEach(() => {
    for (const s of shims.splice(0)) s.kill('SIGKILL');
  });

  it('finds the processes that name an id a killed run recorded, stops none while the runtime cannot say it lost them, and keeps their ids for the next cleanup', async () => {
    const killed = `test-killed-ids-${process.pid}`;
    const id = randomBytes(32).toString('hex');
    const shim = await killedRunWithShim(killed, id);
    try {
      for (const round of [1, 2]) {
        const io = recordingIo();
        const code = await main(['node', 'cri-conform', 'cleanup', '-r', fake.endpoint], io);
        expect(code, 'a process of a run is left running').to.equal(1);
        // The fake serves no containerd records: the shim may still be the runtime's, so it stays.
        expect(io.stderr(), `cleanup ${round}`).to.contain(
          `cri-conform: left running pid ${shim.pid} (cc-test-shim -id ${id}`,
        );
        expect(io.stderr()).to.contain(
          `: the runtime keeps no records beside the CRI to tell a lost process from a build it holds unlisted (CRI-O holds a timed-out one for the retry, and lets it go a minute or two later unless a retry claims it: run cleanup again then); its id stays in ${LOST_IDS_ROOT} for the next cleanup`,
        );
        expect(alive(shim), 'the shim still runs').to.equal(true);
        expect(existsSync(runLogDirectory(killed))).to.equal(false);
        expect(keptLostIds(killed).get(killed)?.ids).to.deep.equal([id]);
      }
    } finally {
      removeRunLogs(killed);
      keepLostIds(killed, [], fake.endpoint);
    }
  });

  it('looks for what the runtime lost of a killed run before it removes the logs of that run, whose pods it removed', async () => {
    const killed = `test-killed-pods-${process.pid}`;
    const id = randomBytes(32).toString('hex');
    fake.publish({
      metadata: { name: 'cc-idem-14-left', namespace: 'cri-conform', attempt: 0 },
      labels: { [RUN_LABEL]: killed },
      state: 'SANDBOX_READY',
    });
    const shim = await killedRunWithShim(killed, id);
    try {
      const io = recordingIo();
      const code = await main(['node', 'cri-conform', 'cleanup', '-r', fake.endpoint], io);
      expect(code, 'a process of the run is left running').to.equal(1);
      expect(io.stdout()).to.contain('removed 0 containers and 1 pods');
      expect(io.stderr()).to.contain(`left running pid ${shim.pid} (cc-test-shim -id ${id}`);
      expect(existsSync(runLogDirectory(killed))).to.equal(false);
    } finally {
      removeRunLogs(killed);
      keepLostIds(killed, [], fake.endpoint);
    }
  });

  it('with --run-id, looks for the lost processes of that run alone', async () => {
    const [mine, other] = [`test-run-id-mine-${process.pid}`, `test-run-id-other-${process.pid}`];
    const [mineId, otherId] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
    await killedRunWithShim(mine, mineId);
    keepLostIds(other, [otherId], fake.endpoint);
    await standInShim(otherId).then((s) => shims.push(s));
    try {
      const io = recordingIo();
      await main(['node', 'cri-conform', 'cleanup', '-r', fake.endpoint, '--run-id', mine], io);
      expect(io.stderr()).to.contain(mineId);
      expect(io.stderr()).to.not.contain(otherId);
      expect(keptLostIds(other).get(other)?.ids).to.deep.equal([otherId]);
    } finally {
      removeRunLogs(mine);
      keepLostIds(mine, [], fake.endpoint);
      keepLostIds(other, [], fake.endpoint);
    }
  });

  it('leaves alone the processes of a run of another runtime on the node, whose ids this one never knew', async () => {
    const crio = `test-other-endpoint-${process.pid}`;
    const id = randomBytes(32).toString('hex');
    const shim = await killedRunWithShim(crio, id, 'unix:///var/run/crio/crio.sock');
    try {
      const io = recordingIo();
      expect(await main(['node', 'cri-conform', 'cleanup', '-r', fake.endpoint], io), io.stderr()).to.equal(
        0,
      );
      expect(io.stdout() + io.stderr()).to.not.contain(id);
      expect(alive(shim)).to.equal(true);
      // Its folder goes with the run's pod logs; the id of the process still running stays for a cleanup of
      // its own runtime.
      expect(existsSync(runLogDirectory(crio))).to.equal(false);
      expect(keptLostIds(crio).get(crio)).to.deep.equal({ endpoint: '/var/run/crio/crio.sock', ids: [id] });
    } finally {
      removeRunLogs(crio);
      keepLostIds(crio, [], 'unix:///var/run/crio/crio.sock');
    }
  });

  it("lets go of another runtime's kept ids once no process names them", async () => {
    const gone = `test-other-gone-${process.pid}`;
    keepLostIds(gone, [randomBytes(32).toString('hex')], 'unix:///var/run/crio/crio.sock');
    try {
      await main(['node', 'cri-conform', 'cleanup', '-r', fake.endpoint], recordingIo());
      expect(keptLostIds(gone).size).to.equal(0);
    } finally {
      keepLostIds(gone, [], 'unix:///var/run/crio/crio.sock');
    }
  });

  it('keeps the folder of a killed run whose ids it could not keep elsewhere, and finds them there again', async () => {
    const killed = `test-keep-fails-${process.pid}`;
    const id = randomBytes(32).toString('hex');
    const shim = await killedRunWithShim(killed, id);
    // Any failure to write (a full /run, say): here a directory has taken the file's place.
    mkdirSync(lostIdsFile(killed), { recursive: true });
    try {
      for (const round of [1, 2]) {
        const io = recordingIo();
        const code = await main(
          ['node', 'cri-conform', 'cleanup', '-r', fake.endpoint, '--run-id', killed],
          io,
        );
        expect(code, `cleanup ${round}: the shim is left`).to.equal(1);
        expect(io.stderr()).to.contain(`could not keep lost ids ${lostIdsFile(killed)}`);
        expect(io.stderr()).to.contain(`left running pid ${shim.pid} (cc-test-shim -id ${id}`);
        expect(existsSync(runLogDirectory(killed)), 'the folder holds the ids').to.equal(true);
      }
    } finally {
      rmSync(lostIdsFile(killed), { recursive: true, force: true });
      removeRunLogs(killed);
    }
  });

  it('stops a process the runtime lost of a pod that cleanup removed itself, once it had the grace to exit', async function () {
    // The grace a runtime has to reap what it removed (REAP_GRACE_MS) is waited out first.
    this.timeout(15_000);
    const withRecords = await startFakeRuntime({ containerdRecords: true });
    const run = `test-removed-lost-${process.pid}`;
    const podId = withRecords.publish({
      metadata: { name: 'cc-idem-14-left', namespace: 'cri-conform', attempt: 0 },
      labels: { [RUN_LABEL]: run },
      state: 'SANDBOX_READY',
    });
    const shim = await standInShim(podId);
    shims.push(shim);
    try {
      const io = recordingIo();
      const code = await main(
        ['node', 'cri-conform', 'cleanup', '-r', withRecords.endpoint, '--run-id', run],
        io,
      );
      expect(code, io.stderr()).to.equal(0);
      expect(io.stdout()).to.contain('removed 0 containers and 1 pods');
      expect(io.stdout()).to.contain(
        "stopped 1 process of ended runs' own sandboxes or containers that the runtime had lost track of",
      );
      await exited(shim);
      expect(shim.signalCode).to.equal('SIGKILL');
    } finally {
      keepLostIds(run, [], withRecords.endpoint);
      await withRecords.close();
    }
  });

  it('leaves the claims alone when it cleans up one run only: claims carry no run id', async () => {
    const runtimeDir = claimedDir();
    const io = recordingIo({ CRI_CONFORM_SLOW_RUNTIME_DIR: runtimeDir });
    const code = await main(['node', 'cri-conform', 'cleanup', '-r', fake.endpoint, '--run-id', 'r1'], io);
    expect(code, io.stderr()).to.equal(0);
    expect(existsSync(join(runtimeDir, 'pods', 'cc-idem-01-'))).to.equal(true);
  });
});
