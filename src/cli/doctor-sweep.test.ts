/**
 * Doctor ends as a run does: a process of its proof pod that the runtime lost track of (a shim containerd
 * 2.1 "cleaned up" beside a kubelet) is stopped and said on stderr in the final sweep's words, while a
 * process of an id doctor did not learn as its own is left alone; the pod's id is recorded beside the pod
 * logs while doctor runs, so that `cleanup` would stop it after a killed doctor, and the record goes at the
 * end. A process the sweep could not stop (nothing could tell whether the runtime still keeps it) is not
 * forgotten with that record: its id is kept, and the next `cleanup`, once the runtime's records say it
 * lost the id, stops it and lets the id go. A run's final sweep does the same (run.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type FakeRuntime, startFakeRuntime } from '../harness/check/fake-runtime.test.helper.js';
import { sleep } from '../harness/core/waits.js';
import { keepLostIds, keptLostIds, lostIdsFile } from '../harness/host/lost-ids.js';
import { OWN_IDS_FILE, POD_LOG_ROOT } from '../harness/host/pod-logs.js';
import { alive, exited, standInShim } from '../harness/runtime/stand-in-shim.test.helper.js';
import { main } from './main.js';
import { type RecordingIo, recordingIo } from './test-io.test.helper.js';

/** The pod-log folders whose own-ids file names the id right now. */
function foldersRecording(id: string): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(POD_LOG_ROOT);
  } catch {
    // No run has made the root yet.
  }
  return names.filter((name) => {
    try {
      return readFileSync(join(POD_LOG_ROOT, name, OWN_IDS_FILE), 'utf8')
        .split('\n')
        .includes(id);
    } catch {
      return false;
    }
  });
}

/** The runs whose kept lost ids include `id`. */
function runsKeeping(id: string): string[] {
  return [...keptLostIds()].filter(([, file]) => file.ids.includes(id)).map(([run]) => run);
}

interface LostShim {
  id: string;
  shim: ChildProcess;
}

/**
 * Doctor on the fake, whose proof pod's shim outlives the pod, unknown to the runtime, as containerd 2.1's
 * lost one does. `children` gets every process it starts.
 */
async function doctorLosingItsShim(
  fake: FakeRuntime,
  children: ChildProcess[],
  onStop: (podId: string) => void = () => undefined,
): Promise<{ io: RecordingIo; lost: LostShim }> {
  const made: LostShim[] = [];
  fake.override('RunPodSandbox', async (req) => {
    const { config } = req as {
      config: { metadata: { name: string; attempt: number }; labels: Record<string, string> };
    };
    // Random, as a runtime's: no process on this node names it but the stand-in below.
    const id = randomBytes(32).toString('hex');
    fake.pods.set(id, { id, metadata: config.metadata, labels: config.labels, state: 'SANDBOX_READY' });
    const shim = await standInShim(id);
    children.push(shim);
    made.push({ id, shim });
    return { podSandboxId: id };
  });
  fake.override('StopPodSandbox', (req) => {
    const { podSandboxId } = req as { podSandboxId: string };
    onStop(podSandboxId);
    const pod = fake.pods.get(podSandboxId);
    if (pod) pod.state = 'SANDBOX_NOTREADY';
    return {};
  });
  const dir = mkdtempSync(join(tmpdir(), 'cc-doctor-sweep-'));
  try {
    const io = recordingIo();
    const flags = [
      ...['-r', fake.endpoint, '--config', '/dev/null', '--node-probes', 'on'],
      // Nothing of the node's own: no NRI socket, and a cgroup parent that does not exist.
      ...['--nri-socket', join(dir, 'none.sock'), '--cgroup-parent', `/cc-unit-doctor-${process.pid}`],
    ];
    const code = await main(['node', 'cri-conform', 'doctor', ...flags], io);
    expect(code, io.stdout() + io.stderr()).to.equal(0);
    expect(made, 'the proof made one pod').to.have.length(1);
    return { io, lost: made[0] as LostShim };
  } finally {
    fake.override('RunPodSandbox', undefined);
    fake.override('StopPodSandbox', undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("doctor's final sweep", function () {
  this.timeout(30_000);
  const children: ChildProcess[] = [];
  let fake: FakeRuntime | undefined;
  afterEach(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    await fake?.close();
  });

  it("stops the lost process of its proof pod, records the pod's id while it runs, and leaves others", async () => {
    // containerd's records, none of them the proof pod's.
    fake = await startFakeRuntime({ containerdRecords: true });
    const foreignId = randomBytes(32).toString('hex');
    const foreign = await standInShim(foreignId);
    children.push(foreign);
    const recordedAtStop: string[][] = [];
    const { io, lost } = await doctorLosingItsShim(fake, children, (podId) =>
      recordedAtStop.push(foldersRecording(podId)),
    );
    const { id, shim } = lost;
    // The sweep waited until it was gone; only its exit event may still be on its way here.
    await Promise.race([exited(shim), sleep(2_000)]);
    expect(shim.signalCode, io.stderr()).to.equal('SIGKILL');
    expect(alive(foreign), "the process of an id that is not doctor's own still runs").to.equal(true);
    expect(io.stderr()).to.contain(
      `cri-conform: final sweep stopped 1 process of doctor's own sandboxes or containers that the runtime had lost track of (no CRI object, no record of it; a runtime bug, as IDEM-14 reports): pid ${shim.pid} (cc-test-shim -id ${id}`,
    );
    expect(io.stderr()).to.not.contain(foreignId);
    expect(io.stdout()).to.not.contain('final sweep');
    expect(recordedAtStop, 'recorded in one folder of its own while the pod was stopped').to.have.length(1);
    expect(recordedAtStop[0]).to.have.length(1);
    expect(foldersRecording(id), 'the record is gone with doctor').to.deep.equal([]);
    expect(runsKeeping(id), 'nothing left to keep').to.deep.equal([]);
  });

  it('keeps the id of a shim it left running, and the next cleanup stops that shim', async () => {
    // The records are not served while doctor runs, so nothing tells a lost shim from one the runtime keeps.
    let recordsServed = false;
    fake = await startFakeRuntime({ containerdRecords: () => recordsServed });
    const { io, lost } = await doctorLosingItsShim(fake, children);
    const { id, shim } = lost;
    const kept = runsKeeping(id);
    try {
      expect(kept, 'one run keeps the id').to.have.length(1);
      expect(io.stderr()).to.contain(`final sweep left running 1 process of doctor's own`);
      expect(io.stderr()).to.contain(
        `final sweep kept 1 id of doctor's own sandboxes or containers in ${lostIdsFile(kept[0] ?? '')}: \`cri-conform cleanup\` looks for their processes again`,
      );
      expect(alive(shim), 'left running').to.equal(true);

      recordsServed = true;
      const cleanup = recordingIo();
      const code = await main(['node', 'cri-conform', 'cleanup', '-r', fake.endpoint], cleanup);
      expect(code, cleanup.stderr()).to.equal(0);
      await Promise.race([exited(shim), sleep(2_000)]);
      expect(shim.signalCode, cleanup.stderr()).to.equal('SIGKILL');
      expect(cleanup.stdout()).to.contain(
        `stopped 1 process of ended runs' own sandboxes or containers that the runtime had lost track of\n  pid ${shim.pid} (cc-test-shim -id ${id}`,
      );
      expect(runsKeeping(id), 'the id goes once its process is stopped').to.deep.equal([]);
    } finally {
      for (const run of kept) keepLostIds(run, [], fake.endpoint);
    }
  });
});
