/**
 * Cleanup removes the empty pod cgroups a runtime left below /cri-conform (in some hierarchies only, as
 * runc does when a removal meets a task still exiting), keeps one that holds something, and touches
 * nothing while another run of the tool is alive.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { removeIdleDefaultParent } from './cgroup-parent-lease.js';
import { CgroupTree } from './cgroup-tree.test.helper.js';
import { removeStalePodCgroups } from './stale-pod-cgroups.js';

const POD = '29e8f7ce1a1e8ccd935293722999d9b9645fc4da2a5ebe33915b8d7680b3f468';

describe('the empty pod cgroups a runtime left below the cgroupfs parent', () => {
  let tree: CgroupTree;
  beforeEach(() => {
    tree = new CgroupTree();
  });
  afterEach(() => tree.remove());

  it('are removed by cleanup, deepest first, and then the parent with them', () => {
    mkdirSync(tree.path(`/sys/fs/cgroup/cpu/cri-conform/${POD}/nested`), { recursive: true });
    mkdirSync(tree.path('/sys/fs/cgroup/memory/cri-conform'), { recursive: true });
    const { podCgroups, cgroupfs } = removeIdleDefaultParent(tree, []);
    expect(podCgroups).to.deep.equal([
      `/sys/fs/cgroup/cpu/cri-conform/${POD}/nested`,
      `/sys/fs/cgroup/cpu/cri-conform/${POD}`,
    ]);
    expect(cgroupfs.removed).to.have.members([
      '/sys/fs/cgroup/cpu/cri-conform',
      '/sys/fs/cgroup/memory/cri-conform',
    ]);
  });

  it('stay while they hold something, and while another run of the tool is alive', () => {
    tree.makeEverywhere(`/cri-conform/${POD}`);
    // A plain file stands for a task: rmdir refuses both.
    writeFileSync(tree.path(`/sys/fs/cgroup/pids/cri-conform/${POD}/task`), '');
    expect(removeStalePodCgroups(tree, ['202611271200-abcdef'])).to.deep.equal([]);
    expect(removeStalePodCgroups(tree, [])).to.have.lengthOf(4);
    expect(existsSync(tree.path(`/sys/fs/cgroup/pids/cri-conform/${POD}`))).to.equal(true);
  });

  it("below the tool's systemd slice are systemd's, and left", () => {
    tree.makeEverywhere(`/cri_conform.slice/cri-containerd-${POD}.scope`);
    expect(removeStalePodCgroups(tree, [])).to.deep.equal([]);
  });
});
