import { expect } from 'chai';
import { deriveCrioConfig } from './crio-config.js';
import { storeRef } from './crio-setup.js';
import { TomlDoc } from './toml-doc.js';

/** A node CRI-O whose store options name another store and a quota, with a registry auth file. */
const NODE = `[crio]
root = "/var/lib/containers/storage"
runroot = "/run/containers/storage"
storage_driver = "overlay"
storage_option = [
	"overlay.mountopt=nodev",
	"overlay.additionalimagestores=/var/lib/shared",
	"overlay.size=10G",
]
[crio.image]
global_auth_file = "/etc/crio/registry-auth.json"
pause_image = "registry.k8s.io/pause:3.10"
`;
const DEFAULTS = `[crio]
root = "/var/lib/containers/storage"
[crio.runtime]
default_runtime = "crun"
[crio.runtime.runtimes.crun]
runtime_path = ""
runtime_type = "oci"
`;
const LAYOUT = {
  dir: '/run/x/1',
  pauseImage: 'p:1',
  slowHandler: 'conform-slow',
  storage: 'overlay' as const,
};

describe("a private CRI-O's store and registry settings", () => {
  it("keeps overlay options that name nothing of the node's, and drops other stores and quotas", () => {
    const derived = deriveCrioConfig(NODE, DEFAULTS, LAYOUT);
    expect(derived.storage.options).to.deep.equal(['overlay.mountopt=nodev']);
    expect(derived.nodeStorage).to.deep.equal({
      driver: 'overlay',
      root: '/var/lib/containers/storage',
      runroot: '/run/containers/storage',
      options: [
        'overlay.mountopt=nodev',
        'overlay.additionalimagestores=/var/lib/shared',
        'overlay.size=10G',
      ],
    });
    expect(derived.changes.find((c) => c.key === 'crio.storage_option')?.why).to.match(/other stores/);
  });

  it("reads the node's images from the node's store and writes them into its own", () => {
    const derived = deriveCrioConfig(NODE, DEFAULTS, LAYOUT);
    expect(storeRef(derived.nodeStorage, 'registry.example/busybox:1')).to.equal(
      'containers-storage:[overlay@/var/lib/containers/storage+/run/containers/storage:overlay.mountopt=nodev,overlay.additionalimagestores=/var/lib/shared,overlay.size=10G]registry.example/busybox:1',
    );
    expect(storeRef(derived.storage, 'registry.example/busybox:1')).to.equal(
      'containers-storage:[overlay@/run/x/1/root+/run/x/1/state:overlay.mountopt=nodev]registry.example/busybox:1',
    );
  });

  it("holds no registry auth file, and uses its own overlay store whatever the node's driver", () => {
    const dm = NODE.replace('storage_driver = "overlay"', 'storage_driver = "devicemapper"').replace(
      '"overlay.mountopt=nodev",',
      '"dm.thinpooldev=/dev/mapper/crio-pool",',
    );
    const derived = deriveCrioConfig(dm, DEFAULTS, LAYOUT);
    const doc = TomlDoc.parse(derived.text);
    expect(doc.string(['crio', 'image'], 'global_auth_file')).to.equal('');
    expect(doc.string(['crio'], 'storage_driver')).to.equal('overlay');
    expect(derived.storage.options).to.deep.equal([]);
    expect(derived.text).not.to.include('crio-pool');
    expect(derived.text).not.to.include('registry-auth.json');
  });

  it("keeps namespaced auth files in its own folder where the node's CRI-O knows the setting (1.34+)", () => {
    const withAuthDir = DEFAULTS.replace(
      '[crio.runtime]',
      '[crio.image]\nnamespaced_auth_dir = "/etc/crio/auth"\n[crio.runtime]',
    );
    const doc = TomlDoc.parse(deriveCrioConfig(NODE, withAuthDir, LAYOUT).text);
    expect(doc.string(['crio', 'image'], 'namespaced_auth_dir')).to.equal('/run/x/1/auth');
    const older = TomlDoc.parse(deriveCrioConfig(NODE, DEFAULTS, LAYOUT).text);
    expect(
      older.string(['crio', 'image'], 'namespaced_auth_dir'),
      "left out where the node's CRI-O has no such setting",
    ).to.equal(undefined);
  });

  it('falls back to vfs where overlay is not usable in its folder', () => {
    const derived = deriveCrioConfig(NODE, DEFAULTS, { ...LAYOUT, storage: 'plain' });
    expect(derived.storage).to.include({ driver: 'vfs' });
    expect(derived.storage.options).to.deep.equal([]);
  });
});
