import { expect } from 'chai';
import { belongsTo, cgroupDir, mountsMentioning, namesId, parseCgroupMounts, parseStat } from './proc.js';

const MOUNTINFO = [
  '30 25 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755',
  '31 30 0:27 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '32 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct',
  '33 30 0:29 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd',
  '34 30 0:30 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
  '90 25 0:50 / /run/containerd/io.containerd.runtime.v2.task/k8s.io/abc123/rootfs rw - overlay overlay rw',
].join('\n');

describe('proc parsing', () => {
  it('reads state and start time after the last parenthesis, even when the command has spaces and parens', () => {
    const stat = '42 (sh (weird) x) Z 1 42 42 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 987654 0 0';
    expect(parseStat(stat)).to.deep.equal({ state: 'Z', startTime: '987654' });
  });

  it('maps v1 controllers, name= hierarchies and the v2 line to their directories', () => {
    const mounts = parseCgroupMounts(MOUNTINFO);
    expect(cgroupDir('9:memory:/k8s.io/abc123', mounts)).to.equal('/sys/fs/cgroup/memory/k8s.io/abc123');
    expect(cgroupDir('3:cpu,cpuacct:/k8s.io/abc123', mounts)).to.equal(
      '/sys/fs/cgroup/cpu,cpuacct/k8s.io/abc123',
    );
    expect(cgroupDir('1:name=systemd:/k8s.io/abc123', mounts)).to.equal(
      '/sys/fs/cgroup/systemd/k8s.io/abc123',
    );
    expect(cgroupDir('0::/k8s.io/abc123', mounts)).to.equal('/sys/fs/cgroup/unified/k8s.io/abc123');
    expect(cgroupDir('5:blkio:/x', mounts)).to.equal(undefined);
  });

  it("keeps the climb out of a reader's own cgroup namespace visible, so the probe does not take it for a directory", () => {
    // A node process read from a pod whose cgroup namespace is rooted at /kubepods/pod1/ctr1.
    const mounts = parseCgroupMounts(MOUNTINFO);
    expect(cgroupDir('0::/../../../k8s.io/abc123', mounts)).to.include('/../');
  });

  it('finds mounts whose line mentions an id', () => {
    expect(mountsMentioning(MOUNTINFO, ['abc123'])).to.deep.equal([
      '/run/containerd/io.containerd.runtime.v2.task/k8s.io/abc123/rootfs',
    ]);
    expect(mountsMentioning(MOUNTINFO, ['def456'])).to.deep.equal([]);
  });
});

describe('which processes belong to a sandbox or container, surely enough to stop them', () => {
  const id = 'ab'.repeat(32);
  const proc = (cmdline: string, cgroups: string[] = ['0::/system.slice/ssh.service']) => ({
    cmdline,
    cgroups,
  });

  it("takes a runtime helper that has the id as a whole argument, and a process in the object's cgroup", () => {
    expect(
      belongsTo(
        proc(`/usr/bin/containerd-shim-runc-v2 -namespace k8s.io -id ${id} -address /run/c.sock`),
        id,
      ),
    ).to.equal(true);
    expect(
      belongsTo(proc(`/usr/bin/conmon -b /run/crio/${id}/userdata -c ${id} --exit-dir /x`), id),
    ).to.equal(true);
    expect(belongsTo(proc('/pause', [`0::/cri-conform/${id}`]), id)).to.equal(true);
    expect(
      belongsTo(proc('sleep 600', [`1:name=systemd:/cri_conform.slice/cri-containerd-${id}.scope`]), id),
    ).to.equal(true);
    expect(belongsTo(proc('conmon', [`0::/cri_conform.slice/crio-conmon-${id}.scope`]), id)).to.equal(true);
  });

  it('leaves a process that only mentions the id: a log follower, a grep, a path holding it', () => {
    expect(namesId(proc(`tail -F /var/log/pods/${id}/log`), id), 'evidence still sees it').to.equal(true);
    expect(belongsTo(proc(`tail -F /var/log/pods/${id}/log`), id)).to.equal(false);
    expect(belongsTo(proc(`grep -c ${id} /var/log/syslog`), id)).to.equal(false);
    expect(belongsTo(proc(`/usr/bin/containerd-shim-runc-v2 -namespace k8s.io -id x${id}`), id)).to.equal(
      false,
    );
    expect(belongsTo(proc('sleep 1', [`0::/user.slice/a${id}`]), id), 'a longer hex name').to.equal(false);
  });
});
