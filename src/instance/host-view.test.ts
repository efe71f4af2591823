import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { HostView } from './host-view.js';
import { startTimeOf } from './processes.js';

/** This process as an instance file records the anchor: it stands in for the node's daemon. */
const selfAnchor = () => ({
  pid: process.pid,
  startTime: startTimeOf(process.pid) ?? '',
  mountNamespace: statSync('/proc/self/ns/mnt').ino,
});

describe('HostView: where the node is, seen from cri-conform', () => {
  it('on the node itself: the plain paths, and the binaries run as they are', () => {
    const view = HostView.of(process.pid);
    expect(view.inPod).to.equal(false);
    expect(view.path('/etc/containerd/config.toml')).to.equal('/etc/containerd/config.toml');
    expect(view.ours('/opt/cri-conform/images/x.tar')).to.equal('/opt/cri-conform/images/x.tar');
    expect(view.command('/usr/bin/containerd', ['--version'])).to.deep.equal({
      file: '/usr/bin/containerd',
      args: ['--version'],
    });
  });

  describe('from a pod, through a process of the node', () => {
    // This process stands in for the node's daemon: its root is "the node".
    const view = HostView.recorded(selfAnchor());
    const root = `/proc/${process.pid}/root`;
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'cc-hostview-'));
      mkdirSync(join(dir, 'cni'));
      writeFileSync(join(dir, 'cni', 'bridge'), '');
      // A node's absolute link, as a CNI bin dir of links to /usr/lib/cni holds.
      symlinkSync(join(dir, 'cni'), join(dir, 'bin'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it("reads node paths below that process's root, following the node's links there", () => {
      expect(view.inPod).to.equal(true);
      expect(view.path(join(dir, 'bin', 'bridge'))).to.equal(`${root}${join(dir, 'cni', 'bridge')}`);
    });

    it('finds a command on a node PATH and names it by its node path', () => {
      expect(view.onPath('bridge', `/nonexistent:${join(dir, 'bin')}`)).to.equal(join(dir, 'bin', 'bridge'));
      expect(view.onPath('absent', join(dir, 'bin'))).to.equal(undefined);
    });

    it("runs node binaries in that process's mount and cgroup namespaces, and hands them our files through our root", () => {
      const cmd = view.command('/usr/bin/ctr', ['images', 'import', view.ours('/opt/x.tar')]);
      expect(cmd.file).to.match(/\/nsenter$/);
      expect(cmd.args).to.deep.equal([
        '-t',
        String(process.pid),
        '-m',
        '-C',
        '--',
        '/usr/bin/ctr',
        'images',
        'import',
        `/proc/${process.pid}/root/opt/x.tar`,
      ]);
    });
  });

  describe('as an instance file recorded it', () => {
    it('records its anchor with the start time and the mount namespace', () => {
      expect(new HostView(process.pid).recordAnchor()).to.deep.equal(selfAnchor());
      expect(new HostView(undefined).recordAnchor()).to.equal(undefined);
    });

    it('trusts the recorded pid only with its start time: a reused pid is not the anchor', () => {
      const reused = { ...selfAnchor(), startTime: '1' };
      // Another process of the recorded mount namespace stands in: here, this one's, the node's own.
      expect(HostView.recorded(reused).anchor).to.equal(undefined);
      expect(HostView.recorded(selfAnchor()).anchor).to.equal(process.pid);
    });
  });
});
