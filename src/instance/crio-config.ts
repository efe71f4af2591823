/**
 * The private instance's CRI-O config, derived from the node's effective config. `crio <node's flags>
 * config` merges the node's file, its drop-ins and its command-line flags, but prints only the settings
 * that differ from CRI-O's defaults (the others are commented out); `config --default` prints every
 * default. The node's value of a setting is the first, else the second. Only what would make the copy
 * share something with the node moves under the instance's directory; every change is recorded.
 */
import { join } from 'node:path';
import type { ChangedSetting, DerivedConfig, PrivateLayout } from './containerd-config.js';
import { layoutPaths } from './layout.js';
import { privateNri } from './private-nri.js';
import { decodeString, decodeStringArray, TomlDoc, tomlString, tomlStringArray } from './toml-doc.js';

/** A containers-storage store, as skopeo names one: `[driver@root+runroot:options]`. */
export interface StoreSpec {
  driver: string;
  root: string;
  runroot: string;
  options: string[];
}

export interface DerivedCrioConfig extends DerivedConfig {
  /** The copy's store, where skopeo puts images. */
  storage: StoreSpec;
  /** The node's store, where skopeo reads the images the node holds. */
  nodeStorage: StoreSpec;
}

/** Overlay options that name no node resource (paths of data, pools, quotas, other stores). */
const PORTABLE_OVERLAY_OPTIONS =
  /^(?:overlay\.)?(?:mountopt|mount_program|skip_mount_home|ignore_chown_errors|force_mask)=/;
const OWN = "the node's CRI-O uses it; the copy keeps its own under its folder";

const CRIO = ['crio'];
const API = ['crio', 'api'];
const RUNTIME = ['crio', 'runtime'];
const RUNTIMES = ['crio', 'runtime', 'runtimes'];
const IMAGE = ['crio', 'image'];
const NETWORK = ['crio', 'network'];
const METRICS = ['crio', 'metrics'];
const TRACING = ['crio', 'tracing'];
const NRI = ['crio', 'nri'];

/** Paths of the copy that only CRI-O has (the shared ones are layoutPaths'). */
export function crioPaths(dir: string) {
  return {
    exits: join(dir, 'exits'),
    attach: join(dir, 'attach'),
    namespaces: join(dir, 'ns'),
    podLogs: join(dir, 'pod-logs'),
    versionFile: join(dir, 'version'),
    versionFilePersist: join(dir, 'version-persist'),
    cleanShutdown: join(dir, 'clean.shutdown'),
    imageStore: join(dir, 'image-store'),
    irqbalance: join(dir, 'irqbalance'),
    namespacedAuth: join(dir, 'auth'),
  };
}

export function deriveCrioConfig(
  effective: string,
  defaults: string,
  layout: PrivateLayout,
): DerivedCrioConfig {
  const doc = TomlDoc.parse(effective);
  const base = TomlDoc.parse(defaults);
  const p = layoutPaths(layout.dir, 'crio');
  const c = crioPaths(layout.dir);
  const changes: ChangedSetting[] = [];
  const raw = (path: readonly string[], key: string) => doc.raw(path, key) ?? base.raw(path, key);
  const text = (path: readonly string[], key: string) => {
    const r = raw(path, key);
    return r === undefined ? undefined : decodeString(r);
  };
  const set = (path: readonly string[], key: string, to: string, why = OWN) => {
    const from = raw(path, key);
    doc.set(path, key, to);
    if (from === undefined || from.trim() !== to)
      changes.push({ key: [...path, key].join('.'), from: from ?? null, to, why });
  };
  const setIfSet = (path: readonly string[], key: string, to: string, why = OWN) => {
    const old = text(path, key);
    if (old !== undefined && old !== '') set(path, key, to, why);
  };
  const nodeStorage: StoreSpec = {
    driver: text(CRIO, 'storage_driver') ?? '',
    root: text(CRIO, 'root') ?? '/var/lib/containers/storage',
    runroot: text(CRIO, 'runroot') ?? '/run/containers/storage',
    options: decodeStringArray(raw(CRIO, 'storage_option') ?? '[]'),
  };

  set(CRIO, 'root', tomlString(p.root));
  set(CRIO, 'runroot', tomlString(p.state));
  setIfSet(CRIO, 'imagestore', tomlString(c.imageStore));
  set(CRIO, 'log_dir', tomlString(c.podLogs));
  set(CRIO, 'version_file', tomlString(c.versionFile));
  setIfSet(CRIO, 'version_file_persist', tomlString(c.versionFilePersist));
  set(CRIO, 'clean_shutdown_file', tomlString(c.cleanShutdown));

  set(API, 'listen', tomlString(p.socket));
  // Port 0: a free port of the kernel's choice; the node's fixed port would collide.
  if (text(API, 'stream_port') !== '0') set(API, 'stream_port', tomlString('0'));

  set(RUNTIME, 'container_exits_dir', tomlString(c.exits));
  set(RUNTIME, 'container_attach_socket_dir', tomlString(c.attach));
  set(RUNTIME, 'namespaces_dir', tomlString(c.namespaces));
  // CRI-O rewrites the irqbalance config of the node (and restores it on start) for some pods.
  setIfSet(RUNTIME, 'irqbalance_config_file', tomlString(c.irqbalance));
  const restore = text(RUNTIME, 'irqbalance_config_restore_file');
  if (restore !== undefined && restore !== '' && restore !== 'disable')
    set(RUNTIME, 'irqbalance_config_restore_file', tomlString('disable'));

  const defaultName = text(RUNTIME, 'default_runtime') ?? 'crun';
  // The node's file lists every runtime once one differs from the defaults; else the defaults do.
  const fromNode = doc.childNames(RUNTIMES).length > 0;
  const runtimes = fromNode ? doc.childNames(RUNTIMES) : base.childNames(RUNTIMES);
  if (!fromNode) for (const name of runtimes) copyTable(base, doc, [...RUNTIMES, name]);
  const defaultPath = doc.string([...RUNTIMES, defaultName], 'runtime_path') || defaultName;
  for (const name of runtimes) {
    if (name === layout.slowHandler) continue;
    set([...RUNTIMES, name], 'runtime_root', tomlString(join(p.runcRoot, name)));
  }
  addSlowHandler(doc, defaultName, layout);
  changes.push({
    key: [...RUNTIMES, layout.slowHandler].join('.'),
    from: null,
    to: `runtime "${defaultName}" with runtime_path = ${join(p.slowRuntime, 'runc-slow')} (the slow runc wrapper)`,
    why: 'the slow runtime injector (README "The injector wrappers")',
  });

  set(
    IMAGE,
    'pause_image',
    tomlString(layout.pauseImage),
    'the sandbox image the run uses, which the copy holds',
  );
  const noAuth =
    "the copy pulls nothing unless --pull allows, and then with no credentials of the node's (only those of --pull-auth-file): the node's registry credentials stay the node's";
  setIfSet(IMAGE, 'global_auth_file', tomlString(''), noAuth);
  setIfSet(IMAGE, 'pause_image_auth_file', tomlString(''), noAuth);
  // CRI-O 1.34+ keeps per-namespace auth files there (made at start, written for a pull that brings
  // credentials): the copy's own, never the node's /etc/crio/auth.
  setIfSet(IMAGE, 'namespaced_auth_dir', tomlString(c.namespacedAuth));
  const driver = layout.storage === 'overlay' ? 'overlay' : 'vfs';
  const storageWhy = `the copy keeps images and containers in its own ${driver} store under its folder, whatever the node uses`;
  if (nodeStorage.driver !== driver) set(CRIO, 'storage_driver', tomlString(driver), storageWhy);
  const options =
    driver === 'overlay' && nodeStorage.driver === 'overlay'
      ? nodeStorage.options.filter((o) => PORTABLE_OVERLAY_OPTIONS.test(o))
      : [];
  if (options.length !== nodeStorage.options.length)
    set(
      CRIO,
      'storage_option',
      tomlStringArray(options),
      `${storageWhy}; the options left out name the node's resources (other stores, pools, quotas)`,
    );

  const nodeCniBinDirs = decodeStringArray(raw(NETWORK, 'plugin_dirs') ?? '["/opt/cni/bin/"]');
  set(NETWORK, 'network_dir', tomlString(p.cniConf));
  set(NETWORK, 'plugin_dirs', tomlStringArray([p.cniBin]));
  // The copy's only network is its own conflist; a named default network would never appear.
  setIfSet(NETWORK, 'cni_default_network', tomlString(''));

  if (raw(METRICS, 'enable_metrics')?.trim() === 'true') set(METRICS, 'enable_metrics', 'false');
  setIfSet(METRICS, 'metrics_socket', tomlString(''));
  if (raw(TRACING, 'enable_tracing')?.trim() === 'true') set(TRACING, 'enable_tracing', 'false');

  const { nri, settings } = privateNri(
    {
      on: ['enable_nri', 'true'],
      disableConnections: 'nri_disable_connections',
      socket: 'nri_listen',
      pluginDir: 'nri_plugin_dir',
      pluginConfigDir: 'nri_plugin_config_dir',
      requestTimeout: 'nri_plugin_request_timeout',
      registrationTimeout: 'nri_plugin_registration_timeout',
    },
    (key) => text(NRI, key),
    p,
  );
  for (const [key, raw] of settings) set(NRI, key, raw);

  return {
    text: doc.toString(),
    changes,
    runcBinary: defaultPath,
    nodeCniBinDirs,
    nri,
    snapshotter: driver,
    storage: { driver, root: p.root, runroot: p.state, options },
    nodeStorage,
  };
}

/** The injector handler: the default runtime's settings, with the slow runc wrapper as its binary. */
function addSlowHandler(doc: TomlDoc, defaultName: string, layout: PrivateLayout): void {
  const p = layoutPaths(layout.dir, 'crio');
  const slow = [...RUNTIMES, layout.slowHandler];
  doc.deleteTree(slow);
  for (const e of doc.table([...RUNTIMES, defaultName])?.entries ?? []) doc.set(slow, e.key, e.raw);
  doc.set(slow, 'runtime_type', tomlString('oci'));
  doc.set(slow, 'runtime_path', tomlString(join(p.slowRuntime, 'runc-slow')));
  doc.set(slow, 'runtime_root', tomlString(join(p.runcRoot, layout.slowHandler)));
  // inherit_default_runtime would take the default's runtime_path instead of the wrapper.
  doc.set(slow, 'inherit_default_runtime', 'false');
}

function copyTable(from: TomlDoc, to: TomlDoc, path: readonly string[]): void {
  for (const e of from.table(path)?.entries ?? []) to.set(path, e.key, e.raw);
}

/** The node's config file and drop-in directory, as its command line names them or CRI-O's defaults. */
export function crioConfigSources(argv: readonly string[], env: Record<string, string> = {}): string {
  const flag = (names: readonly string[]) => {
    for (let i = 1; i < argv.length; i++) {
      const a = argv[i] ?? '';
      for (const n of names) {
        if (a === n) return argv[i + 1];
        if (a.startsWith(`${n}=`)) return a.slice(n.length + 1);
      }
    }
    return undefined;
  };
  const file = flag(['--config', '-c']) ?? env.CONTAINER_CONFIG ?? '/etc/crio/crio.conf';
  const dropIns = flag(['--config-dir', '-d']) ?? env.CONTAINER_CONFIG_DIR ?? '/etc/crio/crio.conf.d';
  return `${file} with the drop-ins in ${dropIns}, its flags and CONTAINER_* environment`;
}
