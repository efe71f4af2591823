/**
 * A process of a torn-down pod that is still alive is named as it is when found: the snapshot that
 * learnt it may have caught it mid-exec (a pause just started under a held hook) with no command line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { CgroupTree } from '../host/cgroup-tree.test.helper.js';
import { describeLeaks, type PodHostSnapshot } from '../host/host-findings.js';
import { readProc } from '../host/proc.js';
import { NodeHostProbe } from './host-probe.js';

describe('host probes on a live process of a torn-down pod', () => {
  it('name it by its command line now, not the empty one the snapshot caught', async () => {
    const tree = new CgroupTree();
    const child = spawn('sleep', ['30']);
    try {
      const pid = child.pid ?? 0;
      const startTime = readProc(pid)?.startTime ?? '';
      // An id nothing on the host names, so that only the snapshot's process can be found.
      const id = randomBytes(32).toString('hex');
      const snapshot: PodHostSnapshot = {
        podId: id,
        ids: [id],
        processes: [{ pid, startTime, cmdline: '' }],
        cgroupDirs: [],
        mounts: [],
      };
      const probe = new NodeHostProbe(undefined, tree, '/cri-conform');
      expect(describeLeaks(await probe.leftovers(snapshot, { withinMs: 0 }))).to.equal(
        `process: pid ${pid} (sleep 30) is still alive`,
      );
    } finally {
      child.kill('SIGKILL');
      tree.remove();
    }
  });

  it('wait for what the runtime reaps during the grace, and end with a whole scan that sees what came', async () => {
    const tree = new CgroupTree();
    const id = randomBytes(32).toString('hex');
    const children: ChildProcess[] = [];
    const snapshotOf = (child: ChildProcess): PodHostSnapshot => {
      children.push(child);
      const pid = child.pid ?? 0;
      const process = { pid, startTime: readProc(pid)?.startTime ?? '', cmdline: '' };
      return { podId: id, ids: [id], processes: [process], cgroupDirs: [], mounts: [] };
    };
    try {
      const probe = new NodeHostProbe(undefined, tree, '/cri-conform');
      const reaped = spawn('sleep', ['30']);
      setTimeout(() => reaped.kill('SIGKILL'), 200);
      expect(await probe.leftovers(snapshotOf(reaped), { withinMs: 2_000 }), 'reaped').to.deep.equal([]);
      const lingering = spawn('sleep', ['30']);
      const found = probe.leftovers(snapshotOf(lingering), { withinMs: 1_000 });
      // Started after the first scan, while the lingering one is looked at again: only a whole scan can
      // find it, by the id it names.
      const late = spawn('sleep', ['30'], { argv0: `cc-test-${id}` });
      children.push(late);
      setTimeout(() => lingering.kill('SIGKILL'), 300);
      expect(describeLeaks(await found)).to.equal(
        `process: pid ${late.pid} (cc-test-${id} 30) still references the pod`,
      );
    } finally {
      for (const c of children) c.kill('SIGKILL');
      tree.remove();
    }
  });

  it('wait out the grace through the rest they are given, and only once a first scan found something', async () => {
    const tree = new CgroupTree();
    const child = spawn('sleep', ['30']);
    try {
      const id = randomBytes(32).toString('hex');
      const pid = child.pid ?? 0;
      const process = { pid, startTime: readProc(pid)?.startTime ?? '', cmdline: '' };
      const snapshot: PodHostSnapshot = {
        podId: id,
        ids: [id],
        processes: [process],
        cgroupDirs: [],
        mounts: [],
      };
      const probe = new NodeHostProbe(undefined, tree, '/cri-conform');
      let rests = 0;
      const rest = <T>(wait: () => Promise<T>) => {
        rests++;
        return wait();
      };
      expect(await probe.leftovers(snapshot, { withinMs: 300, rest })).to.have.length(1);
      expect(rests, 'a process left: one rest').to.equal(1);
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      expect(await probe.leftovers(snapshot, { withinMs: 300, rest })).to.deep.equal([]);
      expect(rests, 'nothing left at the first scan: no rest').to.equal(1);
    } finally {
      child.kill('SIGKILL');
      tree.remove();
    }
  });
});
