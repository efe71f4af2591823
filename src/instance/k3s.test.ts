/**
 * k3s runs containerd as its all-in-one binary under the name "containerd": /proc/<pid>/exe is k3s, which
 * run by its own name is the k3s CLI. A fake /proc (the process, its command line, environment and socket)
 * and a stand-in for the binary show that the copy runs through the link and derives from the config k3s
 * generated, and that without the link it stops with one line instead.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { packageRoot } from '../cri/package-root.js';
import { setUp } from './containerd-setup.js';
import { HostView } from './host-view.js';
import { findNodeDaemon } from './node-daemon.js';
import { TomlDoc } from './toml-doc.js';

const PID = 4242;
const INODE = 90_001;

describe("a private copy of k3s's containerd", () => {
  let t: string;
  let socket: string;
  let config: string;
  let bin: string;

  /** A fake /proc with the k3s containerd process: its exe, argv, environment and listening socket. */
  function fakeProc(exe: string, path: string): string {
    const proc = join(t, 'proc');
    const p = join(proc, String(PID));
    mkdirSync(join(proc, 'self', 'net'), { recursive: true });
    mkdirSync(join(p, 'fd'), { recursive: true });
    writeFileSync(
      join(proc, 'self', 'net', 'unix'),
      `Num       RefCount Protocol Flags    Type St Inode Path\n0000000000000000: 00000002 00000000 00010000 0001 01 ${INODE} ${socket}\n`,
    );
    symlinkSync(`socket:[${INODE}]`, join(p, 'fd', '3'));
    symlinkSync(exe, join(p, 'exe'));
    symlinkSync('/', join(p, 'cwd'));
    symlinkSync('/', join(p, 'root'));
    const argv = ['containerd', '-c', config, '-a', socket, '--state', '/run/k3s/containerd', '--root', '/x'];
    writeFileSync(join(p, 'cmdline'), `${argv.join('\0')}\0`);
    writeFileSync(join(p, 'environ'), `PATH=${path}\0HOME=/root\0`);
    return proc;
  }

  beforeEach(() => {
    t = mkdtempSync(join(tmpdir(), 'cc-k3s-'));
    socket = join(t, 'run/k3s/containerd/containerd.sock');
    bin = join(t, 'data/abc/bin');
    mkdirSync(bin, { recursive: true });
    copyFileSync(join(packageRoot(), 'fixtures/node-configs/k3s/k3s-multicall.sh'), join(bin, 'k3s'));
    const etc = join(t, 'agent/etc/containerd');
    mkdirSync(etc, { recursive: true });
    config = join(etc, 'config.toml');
    copyFileSync(join(packageRoot(), 'fixtures/node-configs/k3s/config.toml'), config);
    writeFileSync(`${config}.tmpl`, '{{ template "base" . }}\n');
  });
  afterEach(() => rmSync(t, { recursive: true, force: true }));

  it('runs it through the "containerd" link on its PATH and derives from the config k3s generated', async () => {
    symlinkSync('k3s', join(bin, 'containerd'));
    const node = findNodeDaemon(socket, fakeProc(join(bin, 'k3s'), `${bin}:/usr/bin:/bin`));
    expect(node).to.deep.include({ flavor: 'containerd', binary: join(bin, 'k3s'), configArg: config });
    expect(node.command).to.equal(join(bin, 'containerd'));
    const setup = await setUp({
      node,
      nodeEndpoint: `unix://${socket}`,
      path: `${bin}:/usr/bin:/bin`,
      host: new HostView(),
      dir: '/run/x/1',
      pauseImage: 'rancher/mirrored-pause:3.6',
      slowHandler: 'conform-slow',
      storage: 'overlay',
    });
    expect(setup.sourceConfig).to.equal(`${config} (generated from ${config}.tmpl)`);
    const doc = TomlDoc.parse(setup.derived.text);
    expect(doc.string(['plugins', 'io.containerd.grpc.v1.cri', 'cni'], 'conf_dir')).to.equal('/run/x/1/cni');
    expect(setup.derived.nodeCniBinDirs).to.deep.equal(['/var/lib/rancher/k3s/data/cni']);
    expect(setup.derived.text).not.to.include('certs.d');
    expect(doc.string(['plugins', 'io.containerd.internal.v1.opt'], 'path')).to.equal('/run/x/1/opt');
  });

  it('finds the link beside the binary when its PATH does not lead there', () => {
    symlinkSync('k3s', join(bin, 'containerd'));
    const node = findNodeDaemon(socket, fakeProc(join(bin, 'k3s'), '/usr/bin:/bin'));
    expect(node.command).to.equal(join(bin, 'containerd'));
  });

  it('stops with one line when nothing runs the binary as containerd', () => {
    const proc = fakeProc(join(bin, 'k3s'), '/usr/bin:/bin');
    expect(() => findNodeDaemon(socket, proc)).to.throw(
      /^the node's containerd runs inside the all-in-one binary .*k3s \(k3s\), and no "containerd" link to it/,
    );
  });
});
