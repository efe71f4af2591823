/**
 * The private instance's containerd config, derived from the node's effective config (`containerd config
 * dump`, which already merges the node's file, its imports and every plugin default). Only what would make
 * the copy share something with the node moves under the instance's directory; every change is recorded.
 * Config version 2 (containerd 1.7) keeps the CRI runtime under io.containerd.grpc.v1.cri; version 3
 * (2.x) splits it into io.containerd.cri.v1.runtime and io.containerd.cri.v1.images.
 */
import { join } from 'node:path';
import { layoutPaths } from './layout.js';
import { privateNri } from './private-nri.js';
import { decodeString, decodeStringArray, TomlDoc, tomlString, tomlStringArray } from './toml-doc.js';

/** One setting the private config holds differently from the node's. */
export interface ChangedSetting {
  key: string;
  from: string | null;
  to: string | null;
}

export interface PrivateLayout {
  dir: string;
  pauseImage: string;
  /** The handler name of the slow runtime wrapper. */
  slowHandler: string;
}

export interface DerivedConfig {
  text: string;
  changes: ChangedSetting[];
  /** The runc binary the node's default runtime uses (BinaryName, else "runc" on PATH). */
  runcBinary: string;
  /** The node's CNI plugin directories, where the bridge, host-local and loopback plugins are looked up. */
  nodeCniBinDirs: string[];
  nri: { requestTimeout: string; registrationTimeout: string };
}

const NRI = ['plugins', 'io.containerd.nri.v1.nri'];
const OPT = ['plugins', 'io.containerd.internal.v1.opt'];
const RUNC_V2 = 'io.containerd.runc.v2';

export function derivePrivateConfig(dump: string, layout: PrivateLayout): DerivedConfig {
  const doc = TomlDoc.parse(dump);
  const version = Number(doc.raw([], 'version') ?? '1');
  if (version !== 2 && version !== 3) {
    throw new Error(`containerd config version ${version} is not supported (2 for 1.7, 3 for 2.x)`);
  }
  const p = layoutPaths(layout.dir);
  const changes: ChangedSetting[] = [];
  const set = (path: readonly string[], key: string, raw: string) => {
    const old = doc.set(path, key, raw);
    if (old === undefined || sameValue(old, raw) === false)
      changes.push({ key: describeKey(path, key), from: old ?? null, to: raw });
  };
  const setIfSet = (path: readonly string[], key: string, raw: string) => {
    const old = doc.string(path, key);
    if (old !== undefined && old !== '') set(path, key, raw);
  };

  // The dump names the node's file as an import; imported plugin sections would replace ours.
  const imports = doc.delete([], 'imports');
  if (imports !== undefined && imports !== '[]') changes.push({ key: 'imports', from: imports, to: null });
  set([], 'root', tomlString(p.root));
  set([], 'state', tomlString(p.state));
  set(['grpc'], 'address', tomlString(p.socket));
  setIfSet(['grpc'], 'tcp_address', tomlString(''));
  set(['ttrpc'], 'address', tomlString(p.ttrpc));
  setIfSet(['debug'], 'address', tomlString(join(layout.dir, 'debug.sock')));
  setIfSet(['metrics'], 'address', tomlString(''));
  // The node's daemon cgroup is the node's; the copy stays in the cgroup of whoever started it.
  setIfSet(['cgroup'], 'path', tomlString(''));
  set(OPT, 'path', tomlString(join(layout.dir, 'opt')));
  // The streaming server (exec, attach) stays a grpc.v1.cri setting in 2.x too; a fixed port would collide.
  const streaming = ['plugins', 'io.containerd.grpc.v1.cri'];
  const port = doc.string(streaming, 'stream_server_port');
  if (port !== undefined && port !== '0') set(streaming, 'stream_server_port', tomlString('0'));
  for (const name of doc.childNames(['plugins'])) {
    if (name.startsWith('io.containerd.snapshotter.v1.'))
      setIfSet(['plugins', name], 'root_path', tomlString(join(p.root, name)));
  }

  const { nri, settings } = privateNri(
    {
      on: ['disable', 'false'],
      disableConnections: 'disable_connections',
      socket: 'socket_path',
      pluginDir: 'plugin_path',
      pluginConfigDir: 'plugin_config_path',
      requestTimeout: 'plugin_request_timeout',
      registrationTimeout: 'plugin_registration_timeout',
    },
    (key) => doc.string(NRI, key),
    p,
  );
  for (const [key, raw] of settings) set(NRI, key, raw);

  const cri =
    version === 2 ? ['plugins', 'io.containerd.grpc.v1.cri'] : ['plugins', 'io.containerd.cri.v1.runtime'];
  const cni = [...cri, 'cni'];
  const nodeCniBinDirs =
    version === 2
      ? [doc.string(cni, 'bin_dir') ?? '/opt/cni/bin']
      : decodeStringArray(doc.raw(cni, 'bin_dirs') ?? "['/opt/cni/bin']");
  set(cni, 'conf_dir', tomlString(p.cniConf));
  if (version === 2) set(cni, 'bin_dir', tomlString(p.cniBin));
  else {
    set(cni, 'bin_dirs', tomlStringArray([p.cniBin]));
    setIfSet(cni, 'bin_dir', tomlString(''));
  }
  set(cni, 'max_conf_num', '1');
  setIfSet(cni, 'conf_template', tomlString(''));
  if (version === 2) set(cri, 'sandbox_image', tomlString(layout.pauseImage));
  else
    set(
      ['plugins', 'io.containerd.cri.v1.images', 'pinned_images'],
      'sandbox',
      tomlString(layout.pauseImage),
    );

  const runtimes = [...cri, 'containerd', 'runtimes'];
  const defaultName = doc.string([...cri, 'containerd'], 'default_runtime_name') ?? 'runc';
  const runcBinary = doc.string([...runtimes, defaultName, 'options'], 'BinaryName') || 'runc';
  for (const name of doc.childNames(runtimes)) {
    if (name === layout.slowHandler) continue;
    const runtime = [...runtimes, name];
    setIfSet(runtime, 'cni_conf_dir', tomlString(p.cniConf));
    if (doc.string(runtime, 'runtime_type') === RUNC_V2)
      set([...runtime, 'options'], 'Root', tomlString(p.runcRoot));
  }
  addSlowHandler(doc, runtimes, defaultName, layout);
  changes.push({
    key: describeKey(runtimes, layout.slowHandler),
    from: null,
    to: `runtime "${defaultName}" with options.BinaryName = ${join(p.slowRuntime, 'runc-slow')} (the slow runc wrapper)`,
  });
  return { text: doc.toString(), changes, runcBinary, nodeCniBinDirs, nri };
}

/** The injector handler: the default runtime's settings, with the slow runc wrapper as its binary. */
function addSlowHandler(
  doc: TomlDoc,
  runtimes: readonly string[],
  defaultName: string,
  layout: PrivateLayout,
): void {
  const set = (path: readonly string[], key: string, raw: string) => doc.set(path, key, raw);
  const slow = [...runtimes, layout.slowHandler];
  doc.deleteTree(slow);
  const base = doc.table([...runtimes, defaultName]);
  for (const e of base?.entries ?? [{ key: 'runtime_type', raw: tomlString(RUNC_V2) }]) {
    set(slow, e.key, e.raw);
  }
  if (doc.string(slow, 'runtime_type') !== RUNC_V2) set(slow, 'runtime_type', tomlString(RUNC_V2));
  const p = layoutPaths(layout.dir);
  for (const e of doc.table([...runtimes, defaultName, 'options'])?.entries ?? [])
    set([...slow, 'options'], e.key, e.raw);
  set([...slow, 'options'], 'BinaryName', tomlString(join(p.slowRuntime, 'runc-slow')));
  set([...slow, 'options'], 'Root', tomlString(p.runcRoot));
}

/** '2s' and "2s" are one value: dumps of 2.x write literal strings, this config basic ones. */
function sameValue(a: string, b: string): boolean {
  const normal = (raw: string) =>
    decodeString(raw) ?? (raw.trim().startsWith('[') ? JSON.stringify(decodeStringArray(raw)) : raw.trim());
  return normal(a) === normal(b);
}

function describeKey(path: readonly string[], key: string): string {
  return [...path, key].map((s) => (/^[A-Za-z0-9_-]+$/.test(s) ? s : JSON.stringify(s))).join('.');
}
