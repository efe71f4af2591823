import { expect } from 'chai';
import { derivePrivateConfig } from './containerd-config.js';
import { TomlDoc } from './toml-doc.js';

/** Excerpts of `containerd config dump` on a node (1.7: version 2; 2.x: version 3, literal strings). */
const NODE_17 = `imports = ["/etc/containerd/config.toml"]
root = "/var/lib/containerd"
state = "/run/containerd"
version = 2

[cgroup]
  path = "/containerd"

[grpc]
  address = "/run/containerd/containerd.sock"

[metrics]
  address = "127.0.0.1:1338"

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    restrict_oom_score_adj = false
    sandbox_image = "registry.k8s.io/pause:3.8"
    stream_server_port = "10010"

    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "/opt/cni/bin"
      conf_dir = "/etc/cni/net.d"
      conf_template = ""
      max_conf_num = 1

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "runc"
      snapshotter = "overlayfs"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
            BinaryName = ""
            SystemdCgroup = true

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.kata]
          runtime_type = "io.containerd.kata.v2"

  [plugins."io.containerd.internal.v1.opt"]
    path = "/opt/containerd"

  [plugins."io.containerd.nri.v1.nri"]
    disable = true
    plugin_path = "/opt/nri/plugins"
    plugin_registration_timeout = "7s"
    plugin_request_timeout = "3s"
    socket_path = "/var/run/nri/nri.sock"

[ttrpc]
  address = "/run/containerd/containerd.sock.ttrpc"
`;

const NODE_21 = `version = 3
root = '/var/lib/containerd'
state = '/run/containerd'
imports = []

[grpc]
  address = '/run/containerd/containerd.sock'

[ttrpc]
  address = '/run/containerd/containerd.sock.ttrpc'

[plugins]
  [plugins.'io.containerd.cri.v1.images']
    snapshotter = 'overlayfs'

    [plugins.'io.containerd.cri.v1.images'.pinned_images]
      sandbox = 'registry.k8s.io/pause:3.10'

  [plugins.'io.containerd.cri.v1.runtime']
    restrict_oom_score_adj = true

    [plugins.'io.containerd.cri.v1.runtime'.containerd]
      default_runtime_name = 'runc'

      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes]
        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
          runtime_type = 'io.containerd.runc.v2'
          sandboxer = 'podsandbox'

          [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
            BinaryName = '/usr/local/sbin/runc'
            Root = ''

    [plugins.'io.containerd.cri.v1.runtime'.cni]
      bin_dir = ''
      bin_dirs = ['/opt/cni/bin']
      conf_dir = '/etc/cni/net.d'
      max_conf_num = 1

  [plugins.'io.containerd.nri.v1.nri']
    disable = false
    socket_path = '/var/run/nri/nri.sock'
    plugin_path = '/opt/nri/plugins'
    plugin_config_path = '/etc/nri/conf.d'
    plugin_registration_timeout = '5s'
    plugin_request_timeout = '2s'
`;

const LAYOUT = {
  dir: '/run/x/1',
  pauseImage: 'localhost/cri-conform/pause:1',
  slowHandler: 'conform-slow',
  storage: 'overlay' as const,
};
const CRI17 = ['plugins', 'io.containerd.grpc.v1.cri'];
const RUNTIMES17 = [...CRI17, 'containerd', 'runtimes'];
const CRI21 = ['plugins', 'io.containerd.cri.v1.runtime'];
const NRI = ['plugins', 'io.containerd.nri.v1.nri'];

describe("the private instance's containerd config", () => {
  describe('from a containerd 1.7 node (config version 2)', () => {
    const derived = derivePrivateConfig(NODE_17, LAYOUT);
    const doc = TomlDoc.parse(derived.text);

    it("moves the sockets, root, state, opt dir and runc root under the instance's dir", () => {
      expect(doc.string([], 'root')).to.equal('/run/x/1/root');
      expect(doc.string([], 'state')).to.equal('/run/x/1/state');
      expect(doc.string(['grpc'], 'address')).to.equal('/run/x/1/containerd.sock');
      expect(doc.string(['ttrpc'], 'address')).to.equal('/run/x/1/containerd.sock.ttrpc');
      expect(doc.string(['plugins', 'io.containerd.internal.v1.opt'], 'path')).to.equal('/run/x/1/opt');
      expect(doc.string([...RUNTIMES17, 'runc', 'options'], 'Root')).to.equal('/run/x/1/runc');
    });

    it("shares no port, cgroup or import with the node's daemon", () => {
      expect(doc.string(['metrics'], 'address')).to.equal('');
      expect(doc.string(CRI17, 'stream_server_port')).to.equal('0');
      expect(doc.string(['cgroup'], 'path')).to.equal('');
      expect(doc.raw([], 'imports')).to.equal(undefined);
    });

    it("enables NRI on its own socket with the node's timeouts and without the node's plugins", () => {
      expect(doc.raw(NRI, 'disable')).to.equal('false');
      expect(doc.string(NRI, 'socket_path')).to.equal('/run/x/1/nri.sock');
      expect(doc.string(NRI, 'plugin_path')).to.equal('/run/x/1/nri-plugins');
      expect(doc.string(NRI, 'plugin_request_timeout')).to.equal('3s');
      expect(doc.string(NRI, 'plugin_registration_timeout')).to.equal('7s');
      expect(derived.nri).to.deep.equal({ requestTimeout: '3s', registrationTimeout: '7s' });
    });

    it('uses its own CNI dirs and the bundled sandbox image, and remembers where the node keeps its plugins', () => {
      expect(doc.string([...CRI17, 'cni'], 'conf_dir')).to.equal('/run/x/1/cni');
      expect(doc.string([...CRI17, 'cni'], 'bin_dir')).to.equal('/run/x/1/cni-bin');
      expect(doc.string(CRI17, 'sandbox_image')).to.equal('localhost/cri-conform/pause:1');
      expect(derived.nodeCniBinDirs).to.deep.equal(['/opt/cni/bin']);
    });

    it('adds the slow handler as a copy of the default runtime whose binary is the wrapper, runc from PATH', () => {
      const slow = [...RUNTIMES17, 'conform-slow'];
      expect(doc.string(slow, 'runtime_type')).to.equal('io.containerd.runc.v2');
      expect(doc.string([...slow, 'options'], 'BinaryName')).to.equal('/run/x/1/slow-runtime/runc-slow');
      expect(doc.raw([...slow, 'options'], 'SystemdCgroup')).to.equal('true');
      expect(derived.runcBinary).to.equal('runc');
    });

    it('keeps every other setting of the node, such as its runtimes and CRI options', () => {
      expect(doc.raw(CRI17, 'restrict_oom_score_adj')).to.equal('false');
      expect(doc.string([...RUNTIMES17, 'kata'], 'runtime_type')).to.equal('io.containerd.kata.v2');
      expect(doc.string([...RUNTIMES17, 'kata', 'options'], 'Root')).to.equal(undefined);
    });

    it('records every change with the old and the new value', () => {
      const keys = derived.changes.map((c) => c.key);
      expect(keys).to.include.members([
        'root',
        'grpc.address',
        'metrics.address',
        'cgroup.path',
        'imports',
        'plugins."io.containerd.nri.v1.nri".disable',
        'plugins."io.containerd.grpc.v1.cri".sandbox_image',
        'plugins."io.containerd.grpc.v1.cri".containerd.runtimes.conform-slow',
      ]);
      expect(derived.changes.find((c) => c.key === 'root')).to.deep.equal({
        key: 'root',
        from: '"/var/lib/containerd"',
        to: '"/run/x/1/root"',
        why: "the node's daemon uses it; the copy keeps its own under its folder",
      });
      expect(keys).not.to.include('plugins."io.containerd.nri.v1.nri".plugin_request_timeout');
    });
  });

  describe('from a containerd 2.x node (config version 3)', () => {
    const derived = derivePrivateConfig(NODE_21, LAYOUT);
    const doc = TomlDoc.parse(derived.text);

    it('sets the CNI bin dirs list, the pinned sandbox image and the runc root of the split CRI plugins', () => {
      expect(doc.raw([...CRI21, 'cni'], 'bin_dirs')).to.equal('["/run/x/1/cni-bin"]');
      expect(doc.string([...CRI21, 'cni'], 'conf_dir')).to.equal('/run/x/1/cni');
      expect(doc.string(['plugins', 'io.containerd.cri.v1.images', 'pinned_images'], 'sandbox')).to.equal(
        'localhost/cri-conform/pause:1',
      );
      expect(doc.string([...CRI21, 'containerd', 'runtimes', 'runc', 'options'], 'Root')).to.equal(
        '/run/x/1/runc',
      );
      expect(derived.nodeCniBinDirs).to.deep.equal(['/opt/cni/bin']);
      expect(derived.runcBinary).to.equal('/usr/local/sbin/runc');
    });

    it("keeps the default runtime's sandboxer for the slow handler", () => {
      const slow = [...CRI21, 'containerd', 'runtimes', 'conform-slow'];
      expect(doc.string(slow, 'sandboxer')).to.equal('podsandbox');
      expect(doc.string([...slow, 'options'], 'BinaryName')).to.equal('/run/x/1/slow-runtime/runc-slow');
    });
  });

  it('refuses a config version it does not know', () => {
    expect(() => derivePrivateConfig('version = 1\n', LAYOUT)).to.throw(/version 1 is not supported/);
  });
});

describe('recording changes', () => {
  it('does not count a value written with the other quote as a change', () => {
    const derived = derivePrivateConfig(
      "version = 3\n[plugins.'io.containerd.nri.v1.nri']\n  plugin_request_timeout = '2s'\n",
      { dir: '/d', pauseImage: 'p', slowHandler: 'conform-slow', storage: 'overlay' as const },
    );
    expect(derived.changes.map((c) => c.key)).not.to.include(
      'plugins."io.containerd.nri.v1.nri".plugin_request_timeout',
    );
  });
});
