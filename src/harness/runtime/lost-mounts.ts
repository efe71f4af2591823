/**
 * The mounts a runtime keeps for a container or sandbox and that only it unmounts: containerd's shim the
 * rootfs at <state>/io.containerd.runtime.v2.task/<namespace>/<id>/rootfs, containerd's CRI plugin a
 * sandbox's /dev/shm at .../sandboxes/<id>/shm, CRI-O a sandbox's at .../overlay-containers/<id>/userdata/shm.
 * When a killed run's teardown is cut short (its shim killed as a lost process, the record dropped), such a
 * mount stays for an id neither the CRI nor the runtime's records know, and no one will ever unmount it.
 * `cleanup` unmounts those of the ids the tool's own runs recorded, once the runtime no longer knows them,
 * as it stops their lost processes (lost-processes.ts); a mount of an id the runtime still records is the
 * runtime's to remove (`cleanup --native`), and stays.
 */

import { type NodeView, ON_NODE } from '../host/node-view.js';
import { mountsMentioning } from '../host/proc.js';
import { unmountAll } from '../host/sandbox-shm.js';
import type { NodeHostProbe } from './host-probe.js';

/** The last parts of a runtime's mount point below the id it names. */
const RUNTIME_MOUNT_TAILS = ['rootfs', 'shm', 'userdata/shm'] as const;

export interface LostMounts {
  unmounted: string[];
  /** Mount points of ids the runtime lost that stay mounted, each with why. */
  problems: string[];
  /** The ids whose mounts stay (lost or still recorded), for the next cleanup. */
  leftIds: string[];
}

/** The runtime's mount points (container rootfs, sandbox shm) that name one of `ids`, each with its id. */
export function runtimeMountsOf(
  mountinfo: string,
  ids: readonly string[],
): { mountPoint: string; id: string }[] {
  const found: { mountPoint: string; id: string }[] = [];
  for (const mountPoint of mountsMentioning(mountinfo, ids)) {
    const id = ids.find((i) => RUNTIME_MOUNT_TAILS.some((tail) => mountPoint.endsWith(`/${i}/${tail}`)));
    if (id) found.push({ mountPoint, id });
  }
  return found;
}

/**
 * Unmounts the runtime's mounts of the probe's own ids that neither the CRI (ids in `listed`) nor the
 * runtime's records know any more.
 */
export async function unmountLostMounts(
  listed: ReadonlySet<string>,
  probe: NodeHostProbe,
  view: NodeView = ON_NODE,
): Promise<LostMounts> {
  const ids = probe.ownIds.all().filter((id) => !listed.has(id));
  const mounts = ids.length === 0 ? [] : runtimeMountsOf(view.mountinfo(), ids);
  if (mounts.length === 0) return { unmounted: [], problems: [], leftIds: [] };
  const known = await probe.recordedIds();
  if ('cannotTell' in known)
    return {
      unmounted: [],
      problems: mounts.map((m) => `${m.mountPoint} (${known.cannotTell})`),
      leftIds: [...new Set(mounts.map((m) => m.id))],
    };
  const lost = mounts.filter((m) => !known.has(m.id));
  const { unmounted, problems } = await unmountAll(lost.map((m) => m.mountPoint));
  const stays = mounts.filter((m) => !unmounted.includes(m.mountPoint));
  return { unmounted, problems, leftIds: [...new Set(stays.map((m) => m.id))] };
}
