import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { NodeView } from '../harness/runtime-instance.js';
import { cgroupDirs, processesInCgroups } from './cgroups.js';

const ID = '8d6f97572f9a3c4fce9bda6a59fdba7ac65ce33831e5fd34610c81ba5452122f';

/** The node's /sys/fs/cgroup is a folder of the test's. */
class FakeNode extends NodeView {
  constructor(private readonly root: string) {
    super();
  }
  override path(nodePath: string): string {
    return join(this.root, nodePath);
  }
}

describe("a private instance's container cgroups", () => {
  const root = mkdtempSync(join(tmpdir(), 'cc-instance-cgroups-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('thaws a frozen one and names the processes still in each, for the removal to kill', () => {
    const freezer = join(root, 'sys/fs/cgroup/freezer/cri_conform.slice', `cri-containerd-${ID}.scope`);
    const pids = join(root, 'sys/fs/cgroup/pids/cri-conform', ID);
    const other = join(root, 'sys/fs/cgroup/pids/cri-conform', 'f'.repeat(64));
    for (const d of [freezer, pids, other]) mkdirSync(d, { recursive: true });
    writeFileSync(join(freezer, 'freezer.state'), 'FROZEN\n');
    writeFileSync(join(freezer, 'cgroup.procs'), '11489\n0\n');
    writeFileSync(join(pids, 'cgroup.procs'), '11489\n11490\n');
    writeFileSync(join(other, 'cgroup.procs'), '4242\n');
    expect(processesInCgroups(cgroupDirs([ID], new FakeNode(root))).sort()).to.deep.equal([11489, 11490]);
    expect(readFileSync(join(freezer, 'freezer.state'), 'utf8')).to.equal('THAWED');
  });
});
