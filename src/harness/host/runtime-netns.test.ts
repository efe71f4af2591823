import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { listNetns, netnsOwnedBy, newSince, takeBaseline } from './host-diff.js';
import { NodeView } from './node-view.js';
import { netnsDirsOf } from './runtime-netns.js';

describe("network namespaces in the runtime's own folder", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cc-netns-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("reads CRI-O's namespaces_dir and containerd's netns under its state dir from the verbose Status", () => {
    const crio = { config: JSON.stringify({ sandboxImage: 'p', crio: { NamespacesDir: '/var/lib/cc/ns' } }) };
    expect(netnsDirsOf(crio)).to.deep.equal(['/var/lib/cc/ns/netns']);
    const containerd = {
      config: JSON.stringify({
        netnsMountsUnderStateDir: true,
        stateDir: '/run/containerd/io.containerd.grpc.v1.cri',
      }),
    };
    expect(netnsDirsOf(containerd)).to.deep.equal(['/run/containerd/io.containerd.grpc.v1.cri/netns']);
    expect(netnsDirsOf({ config: JSON.stringify({ stateDir: '/run/x' }) })).to.deep.equal([]);
    expect(netnsDirsOf({ config: JSON.stringify({ crio: { NamespacesDir: '/var/run' } }) })).to.deep.equal(
      [],
    );
  });

  it('fails a leak check on a netns left in that folder, which /run/netns alone would miss', () => {
    // A private CRI-O pins its pods' namespaces in <instance>/ns/netns (crio-config.ts namespaces_dir).
    const dir = join(root, 'ns', 'netns');
    mkdirSync(dir, { recursive: true });
    const view = new NodeView(undefined, [dir]);
    const baseline = takeBaseline(view);
    const leaked = join(dir, 'e3a2c1f0-5b7d-4c1e-9a5f-0123456789ab');
    writeFileSync(leaked, '');
    const owner = 'a'.repeat(64);
    expect([...listNetns(view).keys()]).to.include(leaked);
    const clues = { ids: [owner], netnsOwners: new Map([[leaked, owner]]) };
    const leaks = newSince(baseline, clues, view);
    expect(leaks.map((l) => [l.kind, l.object])).to.deep.equal([['netns', leaked]]);
    // The same leak without the runtime's folder: nothing to see, so nothing to fail.
    expect(newSince(takeBaseline(), clues)).to.deep.equal([]);
  });
});

describe("a host-network sandbox's pinned netns", () => {
  let root = '';
  const pins: string[] = [];
  const children: ChildProcess[] = [];
  before(function () {
    if (process.getuid?.() !== 0) this.skip();
  });
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cc-netns-'));
  });
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
    for (const pin of pins.splice(0)) spawnSync('umount', ['-l', pin]);
    rmSync(root, { recursive: true, force: true });
  });

  it("is owned by no helper in the node's netns, while a pod's own netns is owned by its process", async () => {
    // CRI-O's pinns --net=host bind-mounts the node's netns under namespaces_dir for a host-network pod; a
    // conmon or a slow handler's wrapper naming another sandbox lives in that netns too.
    const dir = join(root, 'ns', 'netns');
    mkdirSync(dir, { recursive: true });
    const view = new NodeView(undefined, [dir]);
    const baseline = takeBaseline(view);
    const [helperId, podId] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
    const helper = spawn('sleep', ['60'], { argv0: `conmon-like-${helperId}`, stdio: 'ignore' });
    // A pod's process: in a netns of its own, its command line naming its id.
    const pod = spawn('unshare', ['--net', '--', 'sh', '-c', `sleep 60; : ${podId}`], { stdio: 'ignore' });
    children.push(helper, pod);
    await waitFor(() => readFileSync(`/proc/${pod.pid}/cmdline`, 'utf8').includes(podId));
    const pin = (name: string, from: string) => {
      const path = join(dir, name);
      writeFileSync(path, '');
      expect(spawnSync('mount', ['--bind', from, path]).status).to.equal(0);
      pins.push(path);
      return path;
    };
    const hostPin = pin('host-network-pod', '/proc/self/ns/net');
    const podPin = pin('pod', `/proc/${pod.pid}/ns/net`);
    const owners = netnsOwnedBy([helperId, podId], view, baseline);
    expect(owners.has(hostPin), "the host-network pin is nobody's by a helper in it").to.equal(false);
    expect(owners.get(podPin)).to.equal(podId);
  });
});

async function waitFor(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
}
