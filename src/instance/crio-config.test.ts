import { expect } from 'chai';
import { crioConfigSources, deriveCrioConfig } from './crio-config.js';
import { TomlDoc } from './toml-doc.js';

/**
 * Excerpts of CRI-O 1.33's `crio config` on a node: settings at their default are printed commented out,
 * the node's own uncommented; once one runtime differs from the defaults every runtime is printed.
 */
const NODE = `# The CRI-O configuration file specifies all of the available configuration
[crio]

# Path to the "root directory". CRI-O stores all of its data, including
# root = "/var/lib/containers/storage"
# runroot = "/run/containers/storage"
storage_driver = "overlay"
storage_option = [
	"overlay.mountopt=nodev",
]
# log_dir = "/var/log/crio/pods"
# version_file = "/var/run/crio/version"
version_file_persist = "/var/lib/crio/version"
# clean_shutdown_file = "/var/lib/crio/clean.shutdown"

# The crio.api table contains settings for the kubelet/gRPC interface.
[crio.api]
# listen = "/var/run/crio/crio.sock"
stream_port = "10010"

[crio.runtime]
# conmon_env = [
# ]
cgroup_manager = "cgroupfs"
conmon_cgroup = "pod"
# container_exits_dir = "/var/run/crio/exits"
# namespaces_dir = "/var/run"
default_runtime = "runc"

# [crio.runtime.runtimes.runtime-handler]
# runtime_path = "/path/to/the/executable"
[crio.runtime.runtimes.crun]
runtime_path = ""
runtime_type = "oci"
runtime_root = "/run/crun"
monitor_env = [
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
]
[crio.runtime.runtimes.runc]
runtime_path = "/usr/local/bin/runc"
runtime_type = "oci"
runtime_root = "/run/runc"
inherit_default_runtime = false
monitor_path = "/usr/bin/conmon"
monitor_cgroup = "pod"
privileged_without_host_devices = false

[crio.image]
pause_image = "registry.k8s.io/pause:3.10"

[crio.network]
# network_dir = "/etc/cni/net.d/"
plugin_dirs = [
	"/opt/cni/bin/",
	"/usr/libexec/cni",
]

[crio.metrics]
enable_metrics = true
metrics_port = 9537

[crio.tracing]
# enable_tracing = false

[crio.nri]
# enable_nri = true
nri_plugin_dir = "/opt/nri/plugins"
nri_plugin_request_timeout = "3s"

[crio.stats]
`;

/** Excerpts of `crio config --default`: every setting, at CRI-O's default. */
const DEFAULTS = `[crio]
root = "/var/lib/containers/storage"
runroot = "/run/containers/storage"
imagestore = ""
storage_driver = ""
storage_option = [
]
log_dir = "/var/log/crio/pods"
version_file = "/var/run/crio/version"
version_file_persist = ""
clean_shutdown_file = "/var/lib/crio/clean.shutdown"
[crio.api]
listen = "/var/run/crio/crio.sock"
stream_port = "0"
[crio.runtime]
irqbalance_config_file = "/etc/sysconfig/irqbalance"
irqbalance_config_restore_file = "/etc/sysconfig/orig_irq_banned_cpus"
container_exits_dir = "/var/run/crio/exits"
container_attach_socket_dir = "/var/run/crio"
namespaces_dir = "/var/run"
default_runtime = "crun"
[crio.runtime.runtimes.crun]
runtime_path = ""
runtime_type = "oci"
runtime_root = "/run/crun"
[crio.image]
pause_image = "registry.k8s.io/pause:3.10"
[crio.network]
network_dir = "/etc/cni/net.d/"
plugin_dirs = [
	"/opt/cni/bin/",
]
[crio.metrics]
enable_metrics = false
[crio.tracing]
enable_tracing = false
[crio.nri]
enable_nri = true
nri_listen = "/var/run/nri/nri.sock"
nri_plugin_dir = "/opt/nri/plugins"
nri_plugin_config_dir = "/etc/nri/conf.d"
nri_disable_connections = false
nri_plugin_registration_timeout = "5s"
nri_plugin_request_timeout = "2s"
[crio.stats]
`;

const LAYOUT = {
  dir: '/run/x/1',
  pauseImage: 'localhost/cri-conform/pause:1',
  slowHandler: 'conform-slow',
  storage: 'overlay' as const,
};

describe("a private CRI-O's config, derived from the node's", () => {
  const derived = deriveCrioConfig(NODE, DEFAULTS, LAYOUT);
  const doc = TomlDoc.parse(derived.text);
  const changed = (key: string) => derived.changes.find((c) => c.key === key);

  it('moves storage, state, sockets and every file CRI-O writes into the directory; keeps the storage driver', () => {
    expect(doc.string(['crio'], 'root')).to.equal('/run/x/1/root');
    expect(doc.string(['crio'], 'runroot')).to.equal('/run/x/1/state');
    expect(doc.string(['crio'], 'storage_driver')).to.equal('overlay');
    expect(doc.string(['crio', 'api'], 'listen')).to.equal('/run/x/1/crio.sock');
    expect(doc.string(['crio'], 'version_file_persist')).to.equal('/run/x/1/version-persist');
    expect(doc.string(['crio'], 'clean_shutdown_file')).to.equal('/run/x/1/clean.shutdown');
    expect(doc.string(['crio', 'runtime'], 'container_exits_dir')).to.equal('/run/x/1/exits');
    expect(doc.string(['crio', 'runtime'], 'namespaces_dir')).to.equal('/run/x/1/ns');
    expect(doc.string(['crio', 'runtime'], 'irqbalance_config_restore_file')).to.equal('disable');
    expect(derived.storage).to.deep.equal({
      driver: 'overlay',
      root: '/run/x/1/root',
      runroot: '/run/x/1/state',
      options: ['overlay.mountopt=nodev'],
    });
  });

  it("records a setting at CRI-O's default with the default as the old value", () => {
    expect(changed('crio.root')).to.deep.equal({
      key: 'crio.root',
      from: '"/var/lib/containers/storage"',
      to: '"/run/x/1/root"',
      why: "the node's CRI-O uses it; the copy keeps its own under its folder",
    });
    expect(changed('crio.api.stream_port')).to.include({ from: '"10010"', to: '"0"' });
    // An unset imagestore stays unset; unchanged settings are not listed.
    expect(changed('crio.imagestore')).to.equal(undefined);
    expect(doc.raw(['crio', 'runtime'], 'conmon_cgroup')).to.equal('"pod"');
  });

  it('gives every runtime a root of its own and adds the slow handler around the default runtime', () => {
    expect(doc.string(['crio', 'runtime', 'runtimes', 'runc'], 'runtime_root')).to.equal(
      '/run/x/1/runc/runc',
    );
    expect(doc.string(['crio', 'runtime', 'runtimes', 'crun'], 'runtime_root')).to.equal(
      '/run/x/1/runc/crun',
    );
    const slow = ['crio', 'runtime', 'runtimes', 'conform-slow'];
    expect(doc.string(slow, 'runtime_path')).to.equal('/run/x/1/slow-runtime/runc-slow');
    expect(doc.string(slow, 'runtime_root')).to.equal('/run/x/1/runc/conform-slow');
    expect(doc.string(slow, 'monitor_cgroup')).to.equal('pod');
    expect(derived.runcBinary).to.equal('/usr/local/bin/runc');
  });

  it("writes out the default runtimes when the node's file lists none", () => {
    const node = NODE.replace(/\[crio\.runtime\.runtimes\.crun\][\s\S]*?(?=\n\[crio\.image\])/, '').replace(
      'default_runtime = "runc"',
      '',
    );
    const bare = deriveCrioConfig(node, DEFAULTS, LAYOUT);
    const text = TomlDoc.parse(bare.text);
    expect(text.string(['crio', 'runtime', 'runtimes', 'crun'], 'runtime_root')).to.equal(
      '/run/x/1/runc/crun',
    );
    expect(text.string(['crio', 'runtime', 'runtimes', 'conform-slow'], 'runtime_type')).to.equal('oci');
    expect(bare.runcBinary).to.equal('crun');
  });

  it('uses its own CNI config and plugin dirs, remembering the node’s plugin dirs', () => {
    expect(doc.string(['crio', 'network'], 'network_dir')).to.equal('/run/x/1/cni');
    expect(doc.raw(['crio', 'network'], 'plugin_dirs')).to.equal('["/run/x/1/cni-bin"]');
    expect(derived.nodeCniBinDirs).to.deep.equal(['/opt/cni/bin/', '/usr/libexec/cni']);
  });

  it("enables NRI with the node's timeouts and empty plugin dirs; turns metrics off", () => {
    const nri = ['crio', 'nri'];
    expect(doc.raw(nri, 'enable_nri')).to.equal('true');
    expect(doc.string(nri, 'nri_listen')).to.equal('/run/x/1/nri.sock');
    expect(doc.string(nri, 'nri_plugin_dir')).to.equal('/run/x/1/nri-plugins');
    expect(doc.string(nri, 'nri_plugin_request_timeout')).to.equal('3s');
    expect(derived.nri).to.deep.equal({ requestTimeout: '3s', registrationTimeout: '5s' });
    expect(doc.raw(['crio', 'metrics'], 'enable_metrics')).to.equal('false');
    expect(doc.string(['crio', 'image'], 'pause_image')).to.equal('localhost/cri-conform/pause:1');
  });

  it('names the config files the node read', () => {
    expect(crioConfigSources(['crio'])).to.match(
      /^\/etc\/crio\/crio\.conf with the drop-ins in \/etc\/crio\/crio\.conf\.d/,
    );
    expect(crioConfigSources(['crio', '--config', '/a.conf', '--config-dir=/b.d'])).to.match(
      /^\/a\.conf with the drop-ins in \/b\.d,/,
    );
    expect(crioConfigSources(['crio'], { CONTAINER_CONFIG_DIR: '/e.d' })).to.match(/drop-ins in \/e\.d,/);
  });
});
