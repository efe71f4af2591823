import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { NodeView } from '../harness/host/node-view.js';
import { instanceIdOf, removeInstanceCniFiles, sweepStaleCniFiles } from './cni-files.js';

const CID = 'a'.repeat(64);
const OTHER_CID = 'b'.repeat(64);

describe("a private instance's CNI files on the node", () => {
  let root: string;
  let dirs: { results: string; networks: string };
  const node = new NodeView(undefined);
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cc-cni-'));
    dirs = { results: join(root, 'results'), networks: join(root, 'networks') };
    mkdirSync(dirs.results);
    mkdirSync(dirs.networks);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A loopback cache as libcni writes it, for a pod with these CNI_ARGS and netns. */
  const loopback = (cid: string, namespace: string, name: string, netns: string) =>
    writeFileSync(
      join(dirs.results, `cni-loopback-${cid}-lo`),
      JSON.stringify({
        kind: 'cniCacheV1',
        containerId: cid,
        netns,
        networkName: 'cni-loopback',
        cniArgs: [
          ['IgnoreUnknown', '1'],
          ['K8S_POD_NAMESPACE', namespace],
          ['K8S_POD_NAME', name],
        ],
      }),
    );
  const files = () => readdirSync(dirs.results).sort();

  it('reads the instance id from a result file name, and nothing from anyone else’s', () => {
    expect(instanceIdOf(`cri-conform-isolated-mf3k2-1a2b-${CID}-eth0`)).to.equal('mf3k2-1a2b');
    expect(instanceIdOf(`cri-conform-cc-br157-${CID}-eth0`)).to.equal(undefined);
    expect(instanceIdOf(`cbr0-${CID}-eth0`)).to.equal(undefined);
  });

  it('removes one instance’s cache, IPAM state and its containers’ loopback caches, and no other', () => {
    writeFileSync(join(dirs.results, `cri-conform-isolated-i1-${CID}-eth0`), '{}');
    writeFileSync(join(dirs.results, `cri-conform-isolated-i2-${OTHER_CID}-eth0`), '{}');
    loopback(CID, 'cri-conform', 'cc-x', '/nowhere');
    loopback(OTHER_CID, 'cri-conform', 'cc-y', '/nowhere');
    mkdirSync(join(dirs.networks, 'cri-conform-isolated-i1'));
    removeInstanceCniFiles('cri-conform-isolated-i1', [CID], node, dirs);
    expect(files()).to.deep.equal([
      `cni-loopback-${OTHER_CID}-lo`,
      `cri-conform-isolated-i2-${OTHER_CID}-eth0`,
    ]);
    expect(existsSync(join(dirs.networks, 'cri-conform-isolated-i1'))).to.equal(false);
  });

  it('removes the caches whose network namespace is gone when they are the tool’s, records or not (after a reboot)', () => {
    const live = join(root, 'netns-live');
    const gone = join(root, 'netns-gone');
    writeFileSync(live, '');
    const cache = (name: string, netns: string) =>
      writeFileSync(join(dirs.results, name), JSON.stringify({ netns }));
    cache(`cri-conform-isolated-i1-${CID}-eth0`, gone);
    cache(`cri-conform-isolated-i2-${OTHER_CID}-eth0`, live);
    cache(`cbr0-${CID}-eth0`, gone);
    loopback(CID, 'cri-conform', 'cc-idem-01-a', gone);
    loopback(OTHER_CID, 'cri-conform', 'cc-idem-01-b', live);
    loopback('c'.repeat(64), 'payments', 'cc-api', gone);
    loopback('d'.repeat(64), 'cri-conform', 'api', gone);
    const removed = sweepStaleCniFiles(node, dirs);
    expect(removed.map((f) => f.split('/').at(-1)).sort()).to.deep.equal(
      [`cni-loopback-${CID}-lo`, `cri-conform-isolated-i1-${CID}-eth0`].sort(),
    );
    expect(files()).to.include.members([
      `cbr0-${CID}-eth0`,
      `cni-loopback-${OTHER_CID}-lo`,
      `cni-loopback-${'c'.repeat(64)}-lo`,
      `cni-loopback-${'d'.repeat(64)}-lo`,
      `cri-conform-isolated-i2-${OTHER_CID}-eth0`,
    ]);
  });

  it('removes host-local state of an instance’s network only when nothing in it is newer than the boot', () => {
    for (const net of ['cri-conform-isolated-old', 'cri-conform-isolated-new', 'cbr0']) {
      mkdirSync(join(dirs.networks, net));
      writeFileSync(join(dirs.networks, net, '10.214.7.2'), `${CID}\neth0`);
    }
    const past = new Date(Date.now() - 3_600_000);
    for (const net of ['cri-conform-isolated-old', 'cbr0']) {
      utimesSync(join(dirs.networks, net, '10.214.7.2'), past, past);
      utimesSync(join(dirs.networks, net), past, past);
    }
    const boot = Date.now() - 60_000;
    expect(sweepStaleCniFiles(node, dirs, boot)).to.deep.equal([
      join(dirs.networks, 'cri-conform-isolated-old'),
    ]);
    expect(readdirSync(dirs.networks).sort()).to.deep.equal(['cbr0', 'cri-conform-isolated-new']);
  });
});
