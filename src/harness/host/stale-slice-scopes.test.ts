/**
 * Cleanup removes the container scope directories runc left below the tool's slice in the hierarchies
 * systemd does not manage, once systemd has no unit of that name (or one with no task, stopped first), and
 * then stops the slice; a scope that holds a task, one systemd cannot be asked about, and anything while
 * another run is alive stay.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { removeIdleDefaultParent } from './cgroup-parent-lease.js';
import { CgroupTree } from './cgroup-tree.test.helper.js';
import { removeStaleSliceScopes, staleSliceScopes } from './stale-slice-scopes.js';

const GONE = `cri-containerd-${'a'.repeat(64)}.scope`;
const EMPTY = `crio-conmon-${'b'.repeat(64)}.scope`;
const BUSY = `crio-${'c'.repeat(64)}.scope`;

describe("the stale container scopes below the tool's slice", () => {
  let tree: CgroupTree;
  let stopped: string[];
  // systemd here has the empty and the busy scope loaded, and not the gone one.
  const systemd = {
    loadState: (unit: string) => (unit === GONE ? 'not-found' : 'loaded'),
    stop: (unit: string) => {
      stopped.push(unit);
      return true;
    },
  };
  const at = (controller: string, scope: string) => `/sys/fs/cgroup/${controller}/cri_conform.slice/${scope}`;
  beforeEach(() => {
    tree = new CgroupTree();
    stopped = [];
  });
  afterEach(() => tree.remove());

  it('are removed in every hierarchy, and then the slice is stopped', () => {
    // As after a kill: systemd removed the scope in the hierarchies it manages, runc's cpu one stays.
    tree.makeEverywhere('/cri_conform.slice');
    tree.makeEverywhere(`/cri_conform.slice/${GONE}`);
    const { systemd: release } = removeIdleDefaultParent(tree, [], systemd.stop, systemd.loadState);
    expect(release.removed).to.include.members([at('cpu', GONE), at('pids', GONE)]);
    expect(release.stoppedUnit).to.equal('cri_conform.slice');
    expect(stopped).to.deep.equal(['cri_conform.slice']);
  });

  it('that systemd still has with no task are stopped before they are removed', () => {
    tree.makeEverywhere(`/cri_conform.slice/${EMPTY}`);
    writeFileSync(tree.path(`${at('systemd', EMPTY)}/cgroup.procs`), '');
    const removed = removeStaleSliceScopes(tree, [], systemd);
    expect(stopped).to.deep.equal([EMPTY]);
    expect(removed).to.include(at('memory', EMPTY));
  });

  it('stay while they hold a task, and the slice with them, said as kept', () => {
    tree.makeEverywhere(`/cri_conform.slice/${BUSY}`);
    writeFileSync(tree.path(`${at('pids', BUSY)}/cgroup.procs`), '4242\n');
    const { systemd: release } = removeIdleDefaultParent(tree, [], systemd.stop, systemd.loadState);
    expect(release.stoppedUnit).to.equal(undefined);
    expect(release.keptSlice?.dirs).to.include(at('pids', BUSY));
    expect(stopped).to.deep.equal([]);
  });

  it('stay when systemd cannot be asked, or while another run of the tool is alive', () => {
    tree.makeEverywhere(`/cri_conform.slice/${GONE}`);
    expect(staleSliceScopes(tree, () => undefined)).to.deep.equal([]);
    expect(removeStaleSliceScopes(tree, ['202612070548-8c4558'], systemd)).to.deep.equal([]);
    expect(existsSync(tree.path(at('cpu', GONE)))).to.equal(true);
  });

  it('are only directories named like a runtime container scope', () => {
    tree.makeEverywhere('/cri_conform.slice/cri-containerd-0123.scope');
    tree.makeEverywhere('/cri_conform.slice/operator.scope');
    expect(staleSliceScopes(tree, () => 'not-found')).to.deep.equal([]);
  });
});
