/**
 * The [Node] leak probes find a pod's cgroups under both drivers, on a fixture cgroup tree: containerd's
 * cgroupfs `/cri-conform/<id>` and systemd scopes `cri-containerd-<id>.scope`, CRI-O's `crio-<id>.scope`
 * and `crio-conmon-<id>.scope`, in every v1 controller and the unified hierarchy; so a scope or cgroup left
 * after teardown fails IDEM-14/16 and TEAR-11..14 (which read these probes), and one removed does not.
 */
import { randomBytes } from 'node:crypto';
import { rmdirSync } from 'node:fs';
import { expect } from 'chai';
import { CgroupTree, CONTROLLERS } from '../host/cgroup-tree.test.helper.js';
import { describeLeaks, type PodHostSnapshot } from '../host/host-findings.js';
import { NodeHostProbe } from './host-probe.js';

const HIERARCHIES = [...CONTROLLERS, 'unified'];
const newId = () => randomBytes(32).toString('hex');

describe('host probes on a fixture cgroup tree', () => {
  let tree: CgroupTree;
  beforeEach(() => {
    tree = new CgroupTree();
  });
  afterEach(() => tree.remove());

  /** What the baseline diff (IDEM-14/16, TEAR-14) blames on a trial that learnt `ids`. */
  async function leftAfter(parentPath: string, ids: string[], make: (id: string) => string[]) {
    const probe = new NodeHostProbe(undefined, tree, parentPath);
    const baseline = await probe.baseline();
    for (const id of ids) for (const dir of make(id)) tree.makeEverywhere(dir);
    return describeLeaks(await probe.newLeftovers(baseline, { ids, labels: {} }, { withinMs: 0 }));
  }

  const layouts: { driver: string; parentPath: string; dirs: (id: string) => string[] }[] = [
    { driver: 'containerd, cgroupfs', parentPath: '/cri-conform', dirs: (id) => [`/cri-conform/${id}`] },
    {
      driver: 'containerd, systemd',
      parentPath: '/cri_conform.slice',
      dirs: (id) => [`/cri_conform.slice/cri-containerd-${id}.scope`],
    },
    {
      driver: 'CRI-O, systemd',
      parentPath: '/cri_conform.slice',
      dirs: (id) => [`/cri_conform.slice/crio-${id}.scope`, `/cri_conform.slice/crio-conmon-${id}.scope`],
    },
    {
      driver: 'containerd, systemd, a --cgroup-parent slice nested three deep',
      parentPath: '/team.slice/team-conform.slice/team-conform-ci.slice',
      dirs: (id) => [`/team.slice/team-conform.slice/team-conform-ci.slice/cri-containerd-${id}.scope`],
    },
  ];
  for (const { driver, parentPath, dirs } of layouts) {
    it(`blames a cgroup left by the trial (${driver}) in every hierarchy, once`, async () => {
      const id = newId();
      const found = await leftAfter(parentPath, [id], dirs);
      for (const dir of dirs(id))
        expect(found).to.contain(`cgroup: ${dir.slice(1)} exists in ${HIERARCHIES.length} hierarchies`);
    });
  }

  it("never blames another pod's scope that was there before, nor one the trial did not learn", async () => {
    const before = newId();
    tree.makeEverywhere(`/cri_conform.slice/cri-containerd-${before}.scope`);
    const stranger = newId();
    const found = await leftAfter('/cri_conform.slice', [before], () => [
      `/cri_conform.slice/cri-containerd-${stranger}.scope`,
    ]);
    expect(found).to.equal('');
  });

  it('reports the scopes of a torn-down pod that are still there (TEAR-11/12), and nothing once they go', async () => {
    const id = newId();
    const scope = `/cri_conform.slice/cri-containerd-${id}.scope`;
    tree.makeEverywhere(scope);
    const snapshot: PodHostSnapshot = {
      podId: id,
      ids: [id],
      processes: [],
      cgroupDirs: HIERARCHIES.map((h) => `/sys/fs/cgroup/${h}${scope}`),
      mounts: [],
    };
    const probe = new NodeHostProbe(undefined, tree, '/cri_conform.slice');
    expect(describeLeaks(await probe.leftovers(snapshot, { withinMs: 0 }))).to.equal(
      `cgroup: ${scope.slice(1)} exists in ${HIERARCHIES.length} hierarchies`,
    );
    for (const h of HIERARCHIES) rmdirSync(tree.path(`/sys/fs/cgroup/${h}${scope}`));
    expect(await probe.leftovers(snapshot, { withinMs: 0 })).to.deep.equal([]);
  });
});
