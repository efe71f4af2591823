/**
 * The cgroupfs parent's directories, removed again when the run (or doctor) that used them ends. runc
 * makes a missing parent in every hierarchy with the pod's first cgroup and never removes it, so without
 * this each run would leave an empty `/cri-conform` in every controller. What is removed: the default
 * parent (its name is the tool's mark), and of a --cgroup-parent only the directories that did not exist
 * before the run. Only when empty (rmdir refuses a cgroup with tasks or children) and only when no other
 * run of the tool on this node is alive: its runtime may be making a pod's cgroup below the parent right
 * then, and would fail if the parent vanished between its mkdir of the parent and of the pod's cgroup.
 * On the systemd driver the parent is a slice unit, systemd's to keep: an empty transient slice stays
 * after its last pod, and nothing is removed.
 */
import { rmdirSync } from 'node:fs';
import { CGROUPFS_PARENT, type CgroupPlacement } from './cgroup-parent.js';
import type { NodeView } from './node-view.js';
import { exists, hostCgroupMounts, parseCgroupMounts } from './proc.js';

export interface LeaseRelease {
  removed: string[];
  /** Why nothing was removed, when that was decided before looking (another run is alive). */
  keptBecause?: string;
}

export class CgroupParentLease {
  private constructor(
    private readonly view: NodeView | undefined,
    /** Node paths of parent directories this lease may remove, in every hierarchy. */
    private readonly removable: readonly string[],
  ) {}

  /** Nothing to remove: the systemd driver, or a node whose cgroups this process cannot see. */
  static none(): CgroupParentLease {
    return new CgroupParentLease(undefined, []);
  }

  /** Notes, before the run's first pod, which of the parent's directories already exist. */
  static take(placement: CgroupPlacement, view: NodeView): CgroupParentLease {
    if (placement.driver === 'systemd' || !placement.parent.startsWith('/')) return CgroupParentLease.none();
    const owned = placement.parent === CGROUPFS_PARENT;
    const removable: string[] = [];
    for (const mount of hostCgroupMounts(parseCgroupMounts(view.mountinfo()))) {
      // The parent and each ancestor up to the first that exists: what runc's MkdirAll would make.
      let relative = placement.parent;
      let first = true;
      while (relative !== '' && relative !== '/') {
        const dir = `${mount.mountPoint}${relative}`;
        if (!exists(view.path(dir))) removable.push(dir);
        else if (first && owned) removable.push(dir);
        else break;
        first = false;
        relative = relative.slice(0, relative.lastIndexOf('/'));
      }
    }
    return new CgroupParentLease(view, removable);
  }

  /**
   * Removes what is removable and empty, deepest first; a directory in use stays without complaint.
   * @param otherRuns the runs of the tool alive on this node besides this one
   */
  release(otherRuns: readonly string[]): LeaseRelease {
    const view = this.view;
    if (!view || this.removable.length === 0) return { removed: [] };
    if (otherRuns.length > 0)
      return { removed: [], keptBecause: `${otherRuns.length} other run(s) of cri-conform are alive` };
    const removed: string[] = [];
    for (const dir of [...this.removable].sort((a, b) => b.length - a.length)) {
      try {
        rmdirSync(view.path(dir));
        removed.push(dir);
      } catch {
        // Gone already, or holds a cgroup or a task: not ours to empty.
      }
    }
    return { removed };
  }
}

/**
 * For `cleanup`: the default cgroupfs parent a killed run left, in every hierarchy, once empty and no run
 * of the tool is alive. Nothing else: a --cgroup-parent of a killed run is not known here.
 */
export function removeIdleDefaultParent(view: NodeView, otherRuns: readonly string[]): LeaseRelease {
  const placement: CgroupPlacement = {
    driver: 'cgroupfs',
    driverSource: 'cleanup',
    parent: CGROUPFS_PARENT,
    parentSource: 'default',
  };
  return CgroupParentLease.take(placement, view).release(otherRuns);
}
