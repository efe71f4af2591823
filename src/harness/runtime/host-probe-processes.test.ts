/**
 * A process of a torn-down pod that is still alive is named as it is when found: the snapshot that
 * learnt it may have caught it mid-exec (a pause just started under a held hook) with no command line.
 */
import { spawn } from 'node:child_process';
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
});
