/**
 * What CNI keeps on the node for a private instance's pods, outside the instance's directory: libcni's
 * result cache in /var/lib/cni/results (`<network>-<container id>-<interface>`; containerd's own loopback
 * network is `cni-loopback`) and host-local's default IPAM state in /var/lib/cni/networks/<network>. That
 * is on disk: it outlives a reboot, which takes the instance's records (on tmpfs) with it. So besides
 * removing an instance's files by its record, a sweep finds result caches by what they say, where that
 * proves them the tool's and done with: the network of a private instance (`cri-conform-isolated-<id>`),
 * or containerd's loopback for a pod whose CNI arguments name the pod namespace `cri-conform` and a `cc-`
 * name (the kubelet-style CNI_ARGS every pod of a run carries), and in either case a network namespace
 * that no longer exists, so that nothing can tear that network down any more; and host-local state of a
 * private instance's network in which nothing is newer than the node's boot, since every address reserved
 * before a boot belonged to a network namespace the boot ended. No record is needed for either, so it holds
 * wherever other instances keep theirs.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NAME_PREFIX, type NodeView, POD_NAMESPACE } from '../harness/runtime-instance.js';
import { readdirSafe } from './dir-entries.js';
import { NETWORK_NAME_PREFIX } from './network.js';
import { readTextOrEmpty } from './read-text.js';

/** Node paths: libcni's cache dir and host-local's default data dir. */
export interface CniDirs {
  results: string;
  networks: string;
}
const NODE_CNI: CniDirs = { results: '/var/lib/cni/results', networks: '/var/lib/cni/networks' };
const LOOPBACK = 'cni-loopback-';
/** How every private instance's network is named: the prefix, then the instance's id. */
const ISOLATED_PREFIX = NETWORK_NAME_PREFIX;

/** Removes the cache and IPAM state of one instance's network and the loopback caches of its containers. */
export function removeInstanceCniFiles(
  network: string,
  ids: readonly string[],
  node: NodeView,
  dirs = NODE_CNI,
): string[] {
  if (network === '') return [];
  const removed: string[] = [];
  for (const name of readdirSafe(node.path(dirs.results))) {
    if (name.startsWith(`${network}-`) || ids.some((id) => name.startsWith(`${LOOPBACK}${id}-`)))
      removed.push(remove(join(dirs.results, name), node));
  }
  if (readdirSafe(node.path(dirs.networks)).includes(network))
    removed.push(remove(join(dirs.networks, network), node));
  return removed;
}

/**
 * Removes the result caches of the tool's pods whose network namespace is gone, and the host-local state
 * of instances' networks from before the boot at `bootMs`; returns the node paths removed.
 */
export function sweepStaleCniFiles(node: NodeView, dirs = NODE_CNI, bootMs = bootTimeMs()): string[] {
  const removed: string[] = [];
  for (const name of readdirSafe(node.path(dirs.results))) {
    const file = join(dirs.results, name);
    const tools = instanceIdOf(name) !== undefined || name.startsWith(LOOPBACK);
    if (tools && orphanedCache(file, name.startsWith(LOOPBACK), node)) removed.push(remove(file, node));
  }
  for (const name of readdirSafe(node.path(dirs.networks))) {
    const dir = node.path(join(dirs.networks, name));
    const entries = [dir, ...readdirSafe(dir).map((e) => join(dir, e))];
    if (name.startsWith(ISOLATED_PREFIX) && entries.every((e) => modifiedMs(e) < bootMs))
      removed.push(remove(join(dirs.networks, name), node));
  }
  return removed;
}

/** When the node booted: btime of /proc/stat, the same kernel's from a pod. */
function bootTimeMs(): number {
  const btime = /^btime (\d+)$/m.exec(readTextOrEmpty('/proc/stat'))?.[1];
  return btime === undefined ? 0 : Number(btime) * 1000;
}

function modifiedMs(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY; // gone or unreadable: not provably from before the boot
  }
}

/** The instance id in a result cache file's name: `<prefix><id>-<64 hex container id>-<interface>`. */
export function instanceIdOf(resultFile: string): string | undefined {
  if (!resultFile.startsWith(ISOLATED_PREFIX)) return undefined;
  return /^(.+)-[0-9a-f]{64}-[^-]+$/.exec(resultFile.slice(ISOLATED_PREFIX.length))?.[1];
}

/** A cache whose network namespace is gone; a loopback one only for a pod of the tool's (its CNI_ARGS). */
function orphanedCache(file: string, loopback: boolean, node: NodeView): boolean {
  let cache: { netns?: unknown; cniArgs?: unknown };
  try {
    cache = JSON.parse(readFileSync(node.path(file), 'utf8')) as typeof cache;
  } catch {
    return false; // not a cache file as libcni writes them: not provably done with
  }
  const args = new Map(Array.isArray(cache.cniArgs) ? (cache.cniArgs as [string, string][]) : []);
  const ours =
    !loopback ||
    (args.get('K8S_POD_NAMESPACE') === POD_NAMESPACE &&
      (args.get('K8S_POD_NAME') ?? '').startsWith(NAME_PREFIX));
  return ours && typeof cache.netns === 'string' && cache.netns !== '' && !existsSync(node.path(cache.netns));
}

function remove(nodePath: string, node: NodeView): string {
  rmSync(node.path(nodePath), { recursive: true, force: true });
  return nodePath;
}
