/**
 * The cgroupfs parent a run's pods made is removed at its end when empty and no other run is alive; a
 * parent that was there before stays unless it is the tool's own, and the systemd driver's slice stays.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { expect } from 'chai';
import type { CgroupPlacement } from './cgroup-parent.js';
import { CgroupParentLease, removeIdleDefaultParent } from './cgroup-parent-lease.js';
import { CgroupTree, CONTROLLERS } from './cgroup-tree.test.helper.js';

const HIERARCHIES = [...CONTROLLERS, 'unified'];

function placement(driver: CgroupPlacement['driver'], parent: string): CgroupPlacement {
  return { driver, driverSource: 'CRI RuntimeConfig', parent, parentSource: 'default' };
}

describe('the cgroup parent a run leaves', () => {
  let tree: CgroupTree;
  beforeEach(() => {
    tree = new CgroupTree();
  });
  afterEach(() => tree.remove());
  const has = (relative: string) =>
    HIERARCHIES.filter((h) => existsSync(tree.path(`/sys/fs/cgroup/${h}${relative}`)));

  it('removes /cri-conform in every hierarchy where it is empty, and keeps it where a pod cgroup is left', () => {
    const lease = CgroupParentLease.take(placement('cgroupfs', '/cri-conform'), tree);
    tree.makeEverywhere('/cri-conform');
    mkdirSync(tree.path('/sys/fs/cgroup/memory/cri-conform/0123456789abcdef'));
    expect(lease.release([]).removed).to.have.lengthOf(HIERARCHIES.length - 1);
    expect(has('/cri-conform')).to.deep.equal(['memory']);
  });

  it('removes the parent its pods made once they are gone, in every controller and the unified hierarchy', () => {
    const lease = CgroupParentLease.take(placement('cgroupfs', '/cri-conform'), tree);
    tree.makeEverywhere('/cri-conform');
    expect(lease.release([]).removed).to.have.lengthOf(HIERARCHIES.length);
    expect(has('/cri-conform')).to.deep.equal([]);
  });

  it("removes the tool's own /cri-conform left by an earlier run too, since its name is the tool's mark", () => {
    tree.makeEverywhere('/cri-conform');
    CgroupParentLease.take(placement('cgroupfs', '/cri-conform'), tree).release([]);
    expect(has('/cri-conform')).to.deep.equal([]);
  });

  it('leaves everything while another run of the tool is alive: its pods may be made below it right now', () => {
    const lease = CgroupParentLease.take(placement('cgroupfs', '/cri-conform'), tree);
    tree.makeEverywhere('/cri-conform');
    const kept = lease.release(['202611271200-abcdef']);
    expect(kept).to.deep.equal({ removed: [], keptBecause: '1 other run(s) of cri-conform are alive' });
    expect(has('/cri-conform')).to.deep.equal(HIERARCHIES);
  });

  it('removes of a --cgroup-parent only what did not exist before the run', () => {
    tree.makeEverywhere('/team');
    const lease = CgroupParentLease.take(
      { ...placement('cgroupfs', '/team/conform/x'), parentSource: '--cgroup-parent' },
      tree,
    );
    tree.makeEverywhere('/team/conform/x');
    lease.release([]);
    expect(has('/team/conform')).to.deep.equal([]);
    expect(has('/team')).to.deep.equal(HIERARCHIES);
    tree.makeEverywhere('/mine');
    CgroupParentLease.take(
      { ...placement('cgroupfs', '/mine'), parentSource: '--cgroup-parent' },
      tree,
    ).release([]);
    expect(has('/mine')).to.deep.equal(HIERARCHIES);
  });

  it('never removes a systemd slice: systemd keeps the empty transient unit, and its cgroup is its own', () => {
    const lease = CgroupParentLease.take(placement('systemd', 'cri_conform.slice'), tree);
    tree.makeEverywhere('/cri_conform.slice');
    expect(lease.release([]).removed).to.deep.equal([]);
    expect(has('/cri_conform.slice')).to.deep.equal(HIERARCHIES);
  });

  it('cleanup removes an empty /cri-conform a killed run left, and nothing while another run is alive', () => {
    tree.makeEverywhere('/cri-conform');
    expect(removeIdleDefaultParent(tree, ['202611271200-abcdef']).removed).to.deep.equal([]);
    expect(removeIdleDefaultParent(tree, []).removed).to.have.lengthOf(HIERARCHIES.length);
    expect(has('/cri-conform')).to.deep.equal([]);
  });
});
