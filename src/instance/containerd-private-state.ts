/**
 * The parts of a node's containerd config through which a copy would share state with the node, and what
 * the copy holds instead. Images and containers: one snapshotter of its own under its folder (overlayfs,
 * else native) whatever the node uses; every other snapshotter plugin off (devmapper would make thin
 * devices in the node's pool, zfs and btrfs datasets or subvolumes next to the node's) and every proxy
 * plugin gone (a remote snapshotter's daemon serves the node: containerd's garbage collection in the copy
 * would remove every snapshot there that its own empty database does not name, the node's image layers
 * and running containers' root filesystems among them). Registries: no credentials, mirrors or hosts
 * directory; the copy pulls only when --pull allows, and then from the registry itself, with no credentials of the node's.
 */
import { type ConfigEdit, UnsafeSetting } from './config-edit.js';
import type { PrivateStorage } from './layout.js';
import { decodeStringArray, tomlString, tomlStringArray } from './toml-doc.js';

const SNAPSHOTTER_PREFIX = 'io.containerd.snapshotter.v1.';
/** Snapshotters containerd may build in besides overlayfs and native; each is turned off in the copy. */
const OTHER_SNAPSHOTTERS = ['aufs', 'blockfile', 'btrfs', 'devmapper', 'erofs', 'zfs'];
/** containerd 2.x sandboxers built in; any other name is a proxy plugin, the node's daemon. */
const BUILT_IN_SANDBOXERS = new Set(['', 'podsandbox', 'shim']);
const TRANSFER = ['plugins', 'io.containerd.transfer.v1.local'];

export interface SnapshotterScope {
  version: number;
  storage: PrivateStorage;
  /** The CRI runtimes table and the default runtime's name. */
  runtimes: readonly string[];
  defaultName: string;
  /** The copy's root, under which each snapshotter keeps its data. */
  root: string;
}

/** Makes the copy's own snapshotter its only one; returns its name. */
export function privateSnapshotter(edit: ConfigEdit, scope: SnapshotterScope): string {
  const { doc } = edit;
  const name = scope.storage === 'overlay' ? 'overlayfs' : 'native';
  const why = `the copy keeps images and containers in its own ${name} snapshotter under its folder, whatever the node uses`;
  const images =
    scope.version === 2
      ? ['plugins', 'io.containerd.grpc.v1.cri', 'containerd']
      : ['plugins', 'io.containerd.cri.v1.images'];
  edit.set(images, 'snapshotter', tomlString(name), why);
  for (const runtime of doc.childNames(scope.runtimes)) {
    edit.setIfSet([...scope.runtimes, runtime], 'snapshotter', tomlString(''), why);
    refuseProxySandboxer(edit, scope, runtime);
  }
  const platforms = ['plugins', 'io.containerd.cri.v1.images', 'runtime_platforms'];
  for (const handler of doc.childNames(platforms))
    edit.setIfSet([...platforms, handler], 'snapshotter', tomlString(name), why);
  for (const unpack of doc.tables.filter(
    (t) => t.array && samePath(t.path, [...TRANSFER, 'unpack_config']),
  )) {
    const entry = unpack.entries.find((e) => e.key === 'snapshotter');
    if (entry && entry.raw !== tomlString(name)) {
      edit.note(`${TRANSFER.join('.')}.unpack_config.snapshotter`, entry.raw, tomlString(name), why);
      entry.raw = tomlString(name);
    }
  }
  const plugins = new Set([
    ...OTHER_SNAPSHOTTERS.map((s) => SNAPSHOTTER_PREFIX + s),
    ...doc.childNames(['plugins']).filter((p) => p.startsWith(SNAPSHOTTER_PREFIX)),
  ]);
  const off: string[] = [];
  for (const plugin of plugins) {
    if (plugin === `${SNAPSHOTTER_PREFIX}overlayfs` || plugin === `${SNAPSHOTTER_PREFIX}native`) {
      edit.setIfSet(['plugins', plugin], 'root_path', tomlString(`${scope.root}/${plugin}`), why);
      continue;
    }
    edit.dropTree(['plugins', plugin], offReason(plugin));
    off.push(plugin);
  }
  const disabled = decodeStringArray(doc.raw([], 'disabled_plugins') ?? '[]');
  const wanted = [...new Set([...disabled, ...off])];
  if (wanted.length !== disabled.length)
    edit.set([], 'disabled_plugins', tomlStringArray(wanted), `only the copy's own ${name} snapshotter runs`);
  for (const proxy of doc.childNames(['proxy_plugins']))
    edit.dropTree(['proxy_plugins', proxy], proxyReason(doc.string(['proxy_plugins', proxy], 'type')));
  return name;
}

/** No credentials, mirrors or hosts directory in the copy. */
export function privateRegistry(edit: ConfigEdit, version: number): void {
  const registry =
    version === 2
      ? ['plugins', 'io.containerd.grpc.v1.cri', 'registry']
      : ['plugins', 'io.containerd.cri.v1.images', 'registry'];
  const why =
    "the copy pulls nothing unless --pull allows, and then from the registry itself, with no credentials of the node's (only those of --pull-auth-file): the node's credentials, mirrors and hosts directory stay the node's";
  edit.dropTree(registry, why);
  edit.doc.set(registry, 'config_path', tomlString(''));
  edit.setIfSet(TRANSFER, 'config_path', tomlString(''), why);
}

/** A runtime whose pods a proxy sandbox plugin (the node's daemon) runs: left out, or refused if default. */
function refuseProxySandboxer(edit: ConfigEdit, scope: SnapshotterScope, runtime: string): void {
  const path = [...scope.runtimes, runtime];
  const sandboxer = edit.doc.string(path, 'sandboxer') ?? '';
  if (BUILT_IN_SANDBOXERS.has(sandboxer)) return;
  if (runtime === scope.defaultName)
    throw new UnsafeSetting(
      `${[...path, 'sandboxer'].join('.')} = "${sandboxer}": the node's default runtime runs pods through the sandbox plugin "${sandboxer}", a daemon of the node's that a private copy would share; test the node itself in a maintenance window instead`,
    );
  edit.dropTree(
    path,
    `its sandboxer "${sandboxer}" is a plugin daemon of the node's; the checks use the default runtime`,
  );
}

function offReason(plugin: string): string {
  if (plugin.endsWith('devmapper'))
    return "devmapper would make thin devices in the node's pool, named from a count the copy starts afresh: a clash would remove the node's device of that name";
  return "the copy uses only its own snapshotter: this one would keep data next to the node's (its pool, dataset or subvolume)";
}

function proxyReason(type: string | undefined): string {
  if (type === 'snapshot')
    return "a remote snapshotter's daemon is the node's: the copy's garbage collection would remove every snapshot there its own database does not name (the node's image layers and running containers' root filesystems)";
  return `a proxy ${type ?? ''} plugin is a daemon of the node's, whose state the copy must not share`;
}

function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}
