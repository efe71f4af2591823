/**
 * The cgroupfs parent a run's pods made is removed at its end when empty and no other run is alive; a
 * parent that was there before stays unless it is the tool's own; the tool's systemd slice is stopped
 * through systemd under the same rules.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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

  it('removes /cri-conform in every hierarchy where it is empty, and keeps it where a pod cgroup is in use', () => {
    const lease = CgroupParentLease.take(placement('cgroupfs', '/cri-conform'), tree);
    tree.makeEverywhere('/cri-conform');
    const inUse = tree.path('/sys/fs/cgroup/memory/cri-conform/0123456789abcdef');
    mkdirSync(inUse);
    // rmdir refuses a cgroup with a task; here a file stands in for the task.
    writeFileSync(join(inUse, 'task'), '');
    expect(lease.release([]).removed).to.have.lengthOf(HIERARCHIES.length - 1);
    expect(has('/cri-conform')).to.deep.equal(['memory']);
  });

  it('removes the empty pod cgroups the runtime left below /cri-conform, so the run leaves nothing', () => {
    const lease = CgroupParentLease.take(placement('cgroupfs', '/cri-conform'), tree);
    tree.makeEverywhere('/cri-conform/45ccbc4bf651f9593676');
    expect(lease.release([]).removed).to.have.lengthOf(2 * HIERARCHIES.length);
    expect(has('/cri-conform')).to.deep.equal([]);
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

  describe("on the systemd driver, the tool's slice", () => {
    let stopped: string[];
    const stop = (unit: string) => {
      stopped.push(unit);
      return true;
    };
    beforeEach(() => {
      stopped = [];
    });

    it('is stopped through systemd once its cgroup holds nothing, and what systemd left of it removed', () => {
      const lease = CgroupParentLease.take(placement('systemd', 'cri_conform.slice'), tree, stop);
      tree.makeEverywhere('/cri_conform.slice');
      const released = lease.release([]);
      expect(released.stoppedUnit).to.equal('cri_conform.slice');
      expect(released.removed).to.have.lengthOf(HIERARCHIES.length);
      expect(stopped).to.deep.equal(['cri_conform.slice']);
      expect(has('/cri_conform.slice')).to.deep.equal([]);
    });

    it('is not removed by hand when systemd could not stop it, and is said to stay', () => {
      const lease = CgroupParentLease.take(placement('systemd', 'cri_conform.slice'), tree, () => false);
      tree.makeEverywhere('/cri_conform.slice');
      expect(lease.release([]).keptSlice?.dirs).to.have.lengthOf(HIERARCHIES.length);
      expect(has('/cri_conform.slice')).to.deep.equal(HIERARCHIES);
    });

    it('stays while a cgroup is left below it in any hierarchy, and says which: stopping it would stop that', () => {
      const lease = CgroupParentLease.take(placement('systemd', 'cri_conform.slice'), tree, stop);
      tree.makeEverywhere('/cri_conform.slice');
      mkdirSync(tree.path('/sys/fs/cgroup/pids/cri_conform.slice/cri-containerd-0123.scope'));
      expect(lease.release([])).to.deep.equal({
        removed: [],
        keptSlice: {
          unit: 'cri_conform.slice',
          dirs: ['/sys/fs/cgroup/pids/cri_conform.slice/cri-containerd-0123.scope'],
        },
      });
      expect(stopped).to.deep.equal([]);
    });

    it('stays while another run is alive, and is not asked about when it does not exist', () => {
      const lease = CgroupParentLease.take(placement('systemd', 'cri_conform.slice'), tree, stop);
      expect(lease.release([])).to.deep.equal({ removed: [] });
      tree.makeEverywhere('/cri_conform.slice');
      expect(lease.release(['202611271200-abcdef']).keptBecause).to.equal(
        '1 other run(s) of cri-conform are alive',
      );
      expect(stopped).to.deep.equal([]);
    });

    it("another slice (a --cgroup-parent) is not the tool's to stop", () => {
      const given: CgroupPlacement = {
        ...placement('systemd', 'team.slice'),
        parentSource: '--cgroup-parent',
      };
      tree.makeEverywhere('/team.slice');
      expect(CgroupParentLease.take(given, tree, stop).release([])).to.deep.equal({ removed: [] });
      expect(stopped).to.deep.equal([]);
    });

    it('cleanup stops it too, once no run is alive', () => {
      tree.makeEverywhere('/cri_conform.slice');
      expect(removeIdleDefaultParent(tree, ['202611271200-abcdef'], stop).systemd.stoppedUnit).to.equal(
        undefined,
      );
      expect(removeIdleDefaultParent(tree, [], stop).systemd.stoppedUnit).to.equal('cri_conform.slice');
      expect(has('/cri_conform.slice')).to.deep.equal([]);
    });
  });

  it('cleanup removes an empty /cri-conform a killed run left, and nothing while another run is alive', () => {
    tree.makeEverywhere('/cri-conform');
    expect(removeIdleDefaultParent(tree, ['202611271200-abcdef']).cgroupfs.removed).to.deep.equal([]);
    expect(removeIdleDefaultParent(tree, []).cgroupfs.removed).to.have.lengthOf(HIERARCHIES.length);
    expect(has('/cri-conform')).to.deep.equal([]);
  });
});
