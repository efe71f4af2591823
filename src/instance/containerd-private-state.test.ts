import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { packageRoot } from '../cri/package-root.js';
import { describeSkipped } from '../skip-reason.test.helper.js';
import { UnsafeSetting } from './config-edit.js';
import { derivePrivateConfig } from './containerd-config.js';
import { partialImageCause } from './containerd-setup.js';
import { TomlDoc } from './toml-doc.js';

/** The real binaries CI installs (scripts/install-deps.sh): their dump is what a node's looks like. */
const BINARIES = [
  { name: 'containerd 1.7', binary: '/usr/bin/containerd', fixture: 'unsafe-node-v2.toml', version: 2 },
  {
    name: 'containerd 2.1',
    binary: '/opt/cri-conform/containerd-2.1/usr/bin/containerd',
    fixture: 'unsafe-node-v3.toml',
    version: 3,
  },
];
const LAYOUT = {
  dir: '/run/x/1',
  pauseImage: 'localhost/cri-conform/pause:1',
  slowHandler: 'conform-slow',
  storage: 'overlay' as const,
};

function dump(binary: string, config: string): string {
  return execFileSync(binary, ['--config', config, 'config', 'dump'], { encoding: 'utf8', timeout: 30_000 });
}

for (const node of BINARIES) {
  if (!existsSync(node.binary)) {
    describeSkipped(
      `a private copy of a ${node.name} with a remote snapshotter`,
      `${node.binary} is not installed`,
    );
    continue;
  }
  describe(`a private copy of a ${node.name} with a remote snapshotter, devmapper and registry credentials`, () => {
    const scratch = mkdtempSync(join(tmpdir(), 'cc-cfg-'));
    after(() => rmSync(scratch, { recursive: true, force: true }));
    const nodeDump = dump(node.binary, join(packageRoot(), 'fixtures/node-configs', node.fixture));
    const derived = derivePrivateConfig(nodeDump, LAYOUT);
    const doc = TomlDoc.parse(derived.text);
    const images =
      node.version === 2
        ? ['plugins', 'io.containerd.grpc.v1.cri', 'containerd']
        : ['plugins', 'io.containerd.cri.v1.images'];

    it('keeps its images in its own overlayfs snapshotter and talks to no proxy plugin', () => {
      expect(nodeDump).to.include('/run/nonexistent-stargz/stargz.sock');
      expect(doc.string(images, 'snapshotter')).to.equal('overlayfs');
      expect(doc.childNames(['proxy_plugins'])).to.deep.equal([]);
      expect(derived.text).not.to.include('stargz');
      const proxy = derived.changes.find((c) => c.key === 'proxy_plugins.stargz');
      expect(proxy?.why).to.match(/garbage collection would remove every snapshot/);
    });

    it("turns devmapper off, so that no thin device is made in the node's pool", () => {
      expect(derived.text).not.to.include('containerd-pool');
      expect(doc.raw([], 'disabled_plugins')).to.include('io.containerd.snapshotter.v1.devmapper');
      const devmapper = derived.changes.find(
        (c) => c.key === 'plugins."io.containerd.snapshotter.v1.devmapper"',
      );
      expect(devmapper?.from).to.include('pool_name');
    });

    it('holds no registry credentials, mirrors or hosts directory, and its change list names no secret', () => {
      for (const secret of ['s3cr3t-pw', 'deploy', 'mirror.example.com', 'certs.d'])
        expect(derived.text, secret).not.to.include(secret);
      expect(JSON.stringify(derived.changes)).not.to.include('s3cr3t-pw');
      const registry = derived.changes.find((c) => c.key.endsWith('.registry'));
      expect(registry?.from).to.include('password');
      expect(registry?.why).to.match(/with no credentials of the node's/);
    });

    it('is a config the same containerd reads back as written', () => {
      const file = join(scratch, 'private.toml');
      writeFileSync(file, derived.text);
      const again = TomlDoc.parse(dump(node.binary, file));
      expect(again.string(images, 'snapshotter')).to.equal('overlayfs');
      expect(again.childNames(['proxy_plugins'])).to.deep.equal([]);
      expect(again.string(['plugins', 'io.containerd.snapshotter.v1.overlayfs'], 'root_path') ?? '').to.match(
        /^(\/run\/x\/1\/root\/|$)/,
      );
    });
  });
}

describe('an image a node holds only in part', () => {
  it("names the node's setting that keeps layers out of its content store", () => {
    const v2 =
      'version = 2\n[plugins."io.containerd.grpc.v1.cri".containerd]\n  discard_unpacked_layers = true\n';
    expect(partialImageCause(v2)).to.match(/discard_unpacked_layers = true/);
    const v3 = "version = 3\n[plugins.'io.containerd.cri.v1.images']\n  snapshotter = 'stargz'\n";
    expect(partialImageCause(v3)).to.equal(
      `the node's snapshotter "stargz" may fetch layers lazily, outside its content store`,
    );
    expect(partialImageCause('version = 2\n')).to.equal(undefined);
  });
});

describe('a private copy of a containerd whose default runtime runs pods through a proxy sandboxer', () => {
  it('stops before starting, naming the setting', () => {
    const dump = `version = 3
[plugins.'io.containerd.cri.v1.runtime'.containerd]
  default_runtime_name = 'runc'
[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
  runtime_type = 'io.containerd.runc.v2'
  sandboxer = 'remote-vm'
[proxy_plugins.remote-vm]
  type = 'sandbox'
  address = '/run/remote-vm.sock'
`;
    expect(() => derivePrivateConfig(dump, LAYOUT))
      .to.throw(UnsafeSetting)
      .with.property('message')
      .that.matches(
        /^plugins\.io\.containerd\.cri\.v1\.runtime\.containerd\.runtimes\.runc\.sandboxer = "remote-vm"/,
      );
  });
});
