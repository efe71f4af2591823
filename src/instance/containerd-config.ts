/**
 * The private instance's containerd config, derived from the node's effective config (`containerd config
 * dump`, which already merges the node's file, its imports and every plugin default). Only what would make
 * the copy share something with the node moves under the instance's directory; every change is recorded.
 * Config version 2 (containerd 1.7) keeps the CRI runtime under io.containerd.grpc.v1.cri; version 3
 * (2.x) splits it into io.containerd.cri.v1.runtime and io.containerd.cri.v1.images.
 */
import { join } from 'node:path';
import { type ChangedSetting, ConfigEdit, describeKey } from './config-edit.js';
import { privateRegistry, privateSnapshotter } from './containerd-private-state.js';
import type { PrivateStorage } from './layout.js';
import { layoutPaths } from './layout.js';
import { privateNri } from './private-nri.js';
import { decodeStringArray, TomlDoc, tomlString, tomlStringArray } from './toml-doc.js';

export type { ChangedSetting } from './config-edit.js';

export interface PrivateLayout {
  dir: string;
  pauseImage: string;
  /** The handler name of the slow runtime wrapper. */
  slowHandler: string;
  storage: PrivateStorage;
}

export interface DerivedConfig {
  text: string;
  changes: ChangedSetting[];
  /** The runc binary the node's default runtime uses (BinaryName, else "runc" on PATH). */
  runcBinary: string;
  /** The node's CNI plugin directories, where the bridge, host-local and loopback plugins are looked up. */
  nodeCniBinDirs: string[];
  nri: { requestTimeout: string; registrationTimeout: string };
  /** The copy's snapshotter (containerd) or storage driver (CRI-O). */
  snapshotter: string;
}

const NRI = ['plugins', 'io.containerd.nri.v1.nri'];
const OPT = ['plugins', 'io.containerd.internal.v1.opt'];
const RUNC_V2 = 'io.containerd.runc.v2';
const OWN = "the node's daemon uses it; the copy keeps its own under its folder";

export function derivePrivateConfig(dump: string, layout: PrivateLayout): DerivedConfig {
  const doc = TomlDoc.parse(dump);
  const version = Number(doc.raw([], 'version') ?? '1');
  if (version !== 2 && version !== 3) {
    throw new Error(`containerd config version ${version} is not supported (2 for 1.7, 3 for 2.x)`);
  }
  const p = layoutPaths(layout.dir);
  const edit = new ConfigEdit(doc);

  // The dump names the node's file as an import; imported plugin sections would replace ours.
  const imports = doc.delete([], 'imports');
  if (imports !== undefined && imports !== '[]')
    edit.note(
      'imports',
      imports,
      null,
      'the dump already holds what they set; read again, they would undo the changes below',
    );
  edit.set([], 'root', tomlString(p.root), OWN);
  edit.set([], 'state', tomlString(p.state), OWN);
  edit.set(['grpc'], 'address', tomlString(p.socket), OWN);
  edit.setIfSet(
    ['grpc'],
    'tcp_address',
    tomlString(''),
    "a fixed TCP port would collide with the node's daemon",
  );
  edit.set(['ttrpc'], 'address', tomlString(p.ttrpc), OWN);
  edit.setIfSet(['debug'], 'address', tomlString(join(layout.dir, 'debug.sock')), OWN);
  edit.setIfSet(
    ['metrics'],
    'address',
    tomlString(''),
    "a fixed metrics port would collide with the node's daemon",
  );
  edit.setIfSet(
    ['cgroup'],
    'path',
    tomlString(''),
    "the node's daemon cgroup is the node's; the copy stays in the cgroup of whoever started it",
  );
  edit.set(OPT, 'path', tomlString(join(layout.dir, 'opt')), OWN);
  // The streaming server (exec, attach) stays a grpc.v1.cri setting in 2.x too; a fixed port would collide.
  const streaming = ['plugins', 'io.containerd.grpc.v1.cri'];
  const port = doc.string(streaming, 'stream_server_port');
  if (port !== undefined && port !== '0')
    edit.set(
      streaming,
      'stream_server_port',
      tomlString('0'),
      "a fixed port would collide with the node's daemon",
    );

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
  for (const [key, raw] of settings)
    edit.set(
      NRI,
      key,
      raw,
      "the checks' own NRI plugins on the copy's own socket; the node's plugins are not started",
    );

  const cri =
    version === 2 ? ['plugins', 'io.containerd.grpc.v1.cri'] : ['plugins', 'io.containerd.cri.v1.runtime'];
  const cni = [...cri, 'cni'];
  const nodeCniBinDirs =
    version === 2
      ? [doc.string(cni, 'bin_dir') ?? '/opt/cni/bin']
      : decodeStringArray(doc.raw(cni, 'bin_dirs') ?? "['/opt/cni/bin']");
  const ownNetwork =
    "the copy's own bridge network and the slow CNI wrapper; the node's CNI config is the node's pods'";
  edit.set(cni, 'conf_dir', tomlString(p.cniConf), ownNetwork);
  if (version === 2) edit.set(cni, 'bin_dir', tomlString(p.cniBin), ownNetwork);
  else {
    edit.set(cni, 'bin_dirs', tomlStringArray([p.cniBin]), ownNetwork);
    edit.setIfSet(cni, 'bin_dir', tomlString(''), ownNetwork);
  }
  edit.set(cni, 'max_conf_num', '1', ownNetwork);
  edit.setIfSet(cni, 'conf_template', tomlString(''), ownNetwork);
  const pauseWhy = 'the sandbox image the run uses, which the copy holds (README "A private instance")';
  if (version === 2) edit.set(cri, 'sandbox_image', tomlString(layout.pauseImage), pauseWhy);
  else
    edit.set(
      ['plugins', 'io.containerd.cri.v1.images', 'pinned_images'],
      'sandbox',
      tomlString(layout.pauseImage),
      pauseWhy,
    );

  const runtimes = [...cri, 'containerd', 'runtimes'];
  const defaultName = doc.string([...cri, 'containerd'], 'default_runtime_name') ?? 'runc';
  const snapshotter = privateSnapshotter(edit, {
    version,
    storage: layout.storage,
    runtimes,
    defaultName,
    root: p.root,
  });
  privateRegistry(edit, version);
  const runcBinary = doc.string([...runtimes, defaultName, 'options'], 'BinaryName') || 'runc';
  for (const name of doc.childNames(runtimes)) {
    if (name === layout.slowHandler) continue;
    const runtime = [...runtimes, name];
    edit.setIfSet(runtime, 'cni_conf_dir', tomlString(p.cniConf), ownNetwork);
    if (doc.string(runtime, 'runtime_type') === RUNC_V2)
      edit.set([...runtime, 'options'], 'Root', tomlString(p.runcRoot), OWN);
  }
  addSlowHandler(doc, runtimes, defaultName, layout);
  edit.note(
    describeKey(runtimes, layout.slowHandler),
    null,
    `runtime "${defaultName}" with options.BinaryName = ${join(p.slowRuntime, 'runc-slow')} (the slow runc wrapper)`,
    'the slow runtime injector (README "The injector wrappers")',
  );
  return { text: doc.toString(), changes: edit.changes, runcBinary, nodeCniBinDirs, nri, snapshotter };
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
