import { expect } from 'chai';
import { describeLeaks, describeLeaksByOwner, type HostLeak } from './host-findings.js';
import { cgroupName, hostCgroupMounts, parseCgroupMounts } from './proc.js';

const ID = 'ef35afb32204a5c33ad7e014f54f15fa949a83db5284e586dd2e2a7dc9d34012';
const CONTROLLERS = ['cpu', 'memory', 'pids'];

/** A cgroup v1 host whose tree is bind-mounted again into two chroots (as on the CI machines). */
const MOUNTINFO = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  ...['/var/tmp/chroot-a', '', '/var/tmp/chroot-b'].flatMap((prefix, i) =>
    CONTROLLERS.map(
      (c, j) => `${40 + 10 * i + j} 31 0:${29 + j} / ${prefix}/sys/fs/cgroup/${c} rw - cgroup cgroup rw,${c}`,
    ),
  ),
  `70 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw`,
].join('\n');

describe('leak messages: each leaked object once', () => {
  const mounts = parseCgroupMounts(MOUNTINFO);

  it('keeps one mount per hierarchy, the host’s own under /sys/fs/cgroup, whatever the mount order', () => {
    expect(mounts).to.have.length(10);
    expect(hostCgroupMounts(mounts).map((m) => m.mountPoint)).to.deep.equal([
      '/sys/fs/cgroup/cpu',
      '/sys/fs/cgroup/memory',
      '/sys/fs/cgroup/pids',
      '/sys/fs/cgroup/unified',
    ]);
  });

  it('names a cgroup by its path below the hierarchy, the same in every hierarchy', () => {
    expect(cgroupName(`/sys/fs/cgroup/memory/k8s.io/${ID}`, mounts)).to.equal(`k8s.io/${ID}`);
    expect(cgroupName(`/var/tmp/chroot-a/sys/fs/cgroup/cpu/k8s.io/${ID}`, mounts)).to.equal(`k8s.io/${ID}`);
  });

  it('reports a process both probes found once, and a cgroup once with how many hierarchies hold it', () => {
    const host = hostCgroupMounts(mounts);
    const cgroups = (): HostLeak[] =>
      host.map((m) => ({
        kind: 'cgroup',
        what: `${m.mountPoint}/k8s.io/${ID}`,
        object: cgroupName(`${m.mountPoint}/k8s.io/${ID}`, host),
      }));
    const leaks: HostLeak[] = [
      {
        kind: 'process',
        what: 'pid 21107 (containerd-shim-runc-v2 -namespace k8s.io) is still alive',
        object: 'pid 21107',
      },
      ...cgroups(),
      {
        kind: 'process',
        what: `pid 21107 (containerd-shim-runc-v2 -namespace k8s.io) of ${ID.slice(0, 13)} is alive`,
        object: 'pid 21107',
      },
      ...cgroups(),
      { kind: 'netns', what: '/run/netns/cni-1 still exists', object: '/run/netns/cni-1' },
    ];
    expect(describeLeaks(leaks)).to.equal(
      `process: pid 21107 (containerd-shim-runc-v2 -namespace k8s.io) is still alive; cgroup: k8s.io/${ID} exists in 4 hierarchies; netns: /run/netns/cni-1 still exists`,
    );
  });

  it('says "one hierarchy" for a cgroup v2 host, and keeps leaks without an object as they are', () => {
    expect(
      describeLeaks([
        { kind: 'cgroup', what: `/sys/fs/cgroup/k8s.io/${ID}`, object: `k8s.io/${ID}` },
        { kind: 'runtime-record', what: 'containerd container ef35afb32204a is still there' },
      ]),
    ).to.equal(
      `cgroup: k8s.io/${ID} exists in one hierarchy; runtime-record: containerd container ef35afb32204a is still there`,
    );
  });

  it('tells the leftovers of two builds apart, one line each, with what no probe tied to an id last', () => {
    const retry = `5d3c${ID.slice(4)}`;
    expect(
      describeLeaksByOwner([
        { kind: 'process', what: `pid 7 (containerd-shim-runc-v2) of ${ID.slice(0, 13)} is alive`, of: ID },
        { kind: 'netns', what: '/run/netns/cni-9 still exists' },
        { kind: 'cgroup', what: `/sys/fs/cgroup/k8s.io/${retry}`, object: `k8s.io/${retry}`, of: retry },
        { kind: 'cgroup', what: `/sys/fs/cgroup/k8s.io/${ID}`, object: `k8s.io/${ID}`, of: ID },
      ]),
    ).to.deep.equal([
      `process: pid 7 (containerd-shim-runc-v2) of ${ID.slice(0, 13)} is alive; cgroup: k8s.io/${ID} exists in one hierarchy`,
      `cgroup: k8s.io/${retry} exists in one hierarchy`,
      'netns: /run/netns/cni-9 still exists',
    ]);
    expect(describeLeaksByOwner([])).to.deep.equal([]);
  });
});
