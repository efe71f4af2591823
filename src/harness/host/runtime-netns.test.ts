import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { listNetns, newSince, takeBaseline } from './host-diff.js';
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
