/**
 * A process of doctor's own that its final sweep could not stop (the runtime's records could not be read to
 * tell whether it still keeps it) is not forgotten when doctor's pod-log folder goes: its id is kept, and
 * the next `cleanup`, on a runtime whose records say it lost the id, stops it and lets the id go. A run's
 * final sweep keeps ids in the same way (run.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type FakeRuntime, startFakeRuntime } from '../harness/check/fake-runtime.test.helper.js';
import { sleep } from '../harness/core/waits.js';
import { keepLostIds, keptLostIds, lostIdsFile } from '../harness/host/lost-ids.js';
import { alive, exited, standInShim } from '../harness/runtime/stand-in-shim.test.helper.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

/** The runs whose kept lost ids include `id`. */
function runsKeeping(id: string): string[] {
  return [...keptLostIds()].filter(([, ids]) => ids.includes(id)).map(([run]) => run);
}

describe('a process a final sweep could not stop, left to cleanup', function () {
  this.timeout(30_000);
  let unreadable: FakeRuntime;
  let readable: FakeRuntime;
  let dir: string;
  const children: ChildProcess[] = [];
  before(async () => {
    // The first serves no containerd records, so nothing tells a lost process from one it keeps.
    [unreadable, readable] = await Promise.all([
      startFakeRuntime(),
      startFakeRuntime({ containerdRecords: true }),
    ]);
    dir = mkdtempSync(join(tmpdir(), 'cc-sweep-left-'));
  });
  after(async () => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    await Promise.all([unreadable.close(), readable.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the id of doctor's proof pod whose shim it left running, and the next cleanup stops that shim", async () => {
    const made: { id: string; shim: ChildProcess }[] = [];
    // The proof pod's shim outlives the pod, unknown to the runtime, as containerd 2.1's lost one does.
    unreadable.override('RunPodSandbox', async (req) => {
      const { config } = req as {
        config: { metadata: { name: string; attempt: number }; labels: Record<string, string> };
      };
      const id = randomBytes(32).toString('hex');
      unreadable.pods.set(id, {
        id,
        metadata: config.metadata,
        labels: config.labels,
        state: 'SANDBOX_READY',
      });
      const shim = await standInShim(id);
      children.push(shim);
      made.push({ id, shim });
      return { podSandboxId: id };
    });
    const flags = [
      ...['-r', unreadable.endpoint, '--config', '/dev/null', '--node-probes', 'on'],
      ...['--nri-socket', join(dir, 'none.sock'), '--cgroup-parent', `/cc-unit-sweep-left-${process.pid}`],
    ];
    let kept: string[] = [];
    try {
      const doctor = recordingIo();
      expect(await main(['node', 'cri-conform', 'doctor', ...flags], doctor), doctor.stderr()).to.equal(0);
      expect(made, 'the proof made one pod').to.have.length(1);
      const [{ id, shim }] = made as [{ id: string; shim: ChildProcess }];
      kept = runsKeeping(id);
      expect(kept, 'one run keeps the id').to.have.length(1);
      expect(doctor.stderr()).to.contain(`final sweep left running 1 process of doctor's own`);
      expect(doctor.stderr()).to.contain(
        `final sweep kept 1 id of doctor's own sandboxes or containers in ${lostIdsFile(kept[0] ?? '')}: \`cri-conform cleanup\` looks for their processes again`,
      );
      expect(alive(shim), 'left running').to.equal(true);

      const cleanup = recordingIo();
      const code = await main(['node', 'cri-conform', 'cleanup', '-r', readable.endpoint], cleanup);
      expect(code, cleanup.stderr()).to.equal(0);
      await Promise.race([exited(shim), sleep(2_000)]);
      expect(shim.signalCode, cleanup.stderr()).to.equal('SIGKILL');
      expect(cleanup.stdout()).to.contain(
        `stopped 1 process of ended runs' own sandboxes or containers that the runtime had lost track of\n  pid ${shim.pid} (cc-test-shim -id ${id}`,
      );
      expect(runsKeeping(id), 'the id goes once its process is stopped').to.deep.equal([]);
    } finally {
      unreadable.override('RunPodSandbox', undefined);
      for (const run of kept) keepLostIds(run, []);
    }
  });
});
