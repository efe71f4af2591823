/**
 * What CNI keeps on the node for a private instance's pods, outside the instance's directory: libcni's
 * result cache in /var/lib/cni/results (`<network>-<container id>-<interface>`; containerd's own loopback
 * network is `cni-loopback`) and host-local's default IPAM state in /var/lib/cni/networks/<network>. That
 * is on disk: it outlives a reboot, which takes the instance's records (on tmpfs) with it. So besides
 * removing an instance's files by its record, a sweep finds them by name alone, where the name proves them
 * the tool's:
 * - `cri-conform-isolated-<instance id>-...` and `networks/cri-conform-isolated-<instance id>` of an instance
 *   with no record left, or whose run is gone;
 * - a `cni-loopback-...` cache whose arguments name the pod namespace `cri-conform` and a `cc-` pod name
 *   (the kubelet-style CNI_ARGS every pod of a run carries), once the network namespace it names is gone:
 *   then nothing can tear that network down any more, and the file is only a leftover.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { NAME_PREFIX, type NodeView, POD_NAMESPACE } from '../harness/runtime-instance.js';
import { networkFor } from './network.js';

/** Node paths: libcni's cache dir and host-local's default data dir. */
export interface CniDirs {
  results: string;
  networks: string;
}
const NODE_CNI: CniDirs = { results: '/var/lib/cni/results', networks: '/var/lib/cni/networks' };
const LOOPBACK = 'cni-loopback-';
/** How every private instance's network is named: the prefix, then the instance's id. */
const ISOLATED_PREFIX = networkFor(0, '').name;

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
 * Removes the files of instances that are not `live` (ids of instances whose run still runs) and the
 * loopback caches of the tool's pods whose network namespace is gone; returns the node paths removed.
 */
export function sweepStaleCniFiles(live: ReadonlySet<string>, node: NodeView, dirs = NODE_CNI): string[] {
  const removed: string[] = [];
  const stale = (instanceId: string | undefined) => instanceId !== undefined && !live.has(instanceId);
  for (const name of readdirSafe(node.path(dirs.results))) {
    const file = join(dirs.results, name);
    if (stale(instanceIdOf(name)) || (name.startsWith(LOOPBACK) && orphanedLoopback(file, node)))
      removed.push(remove(file, node));
  }
  for (const name of readdirSafe(node.path(dirs.networks)))
    if (name.startsWith(ISOLATED_PREFIX) && stale(name.slice(ISOLATED_PREFIX.length)))
      removed.push(remove(join(dirs.networks, name), node));
  return removed;
}

/** The instance id in a result cache file's name: `<prefix><id>-<64 hex container id>-<interface>`. */
export function instanceIdOf(resultFile: string): string | undefined {
  if (!resultFile.startsWith(ISOLATED_PREFIX)) return undefined;
  return /^(.+)-[0-9a-f]{64}-[^-]+$/.exec(resultFile.slice(ISOLATED_PREFIX.length))?.[1];
}

/** A loopback cache of one of the tool's pods whose network namespace no longer exists. */
function orphanedLoopback(file: string, node: NodeView): boolean {
  let cache: { netns?: unknown; cniArgs?: unknown };
  try {
    cache = JSON.parse(readFileSync(node.path(file), 'utf8')) as typeof cache;
  } catch {
    return false; // not a cache file as libcni writes them: not provably ours
  }
  const args = new Map(Array.isArray(cache.cniArgs) ? (cache.cniArgs as [string, string][]) : []);
  const ours =
    args.get('K8S_POD_NAMESPACE') === POD_NAMESPACE &&
    (args.get('K8S_POD_NAME') ?? '').startsWith(NAME_PREFIX);
  return ours && typeof cache.netns === 'string' && cache.netns !== '' && !existsSync(node.path(cache.netns));
}

function remove(nodePath: string, node: NodeView): string {
  rmSync(node.path(nodePath), { recursive: true, force: true });
  return nodePath;
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
