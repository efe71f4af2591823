/**
 * The cgroupfs parent's directories, removed again when the run (or doctor) that used them ends. runc
 * makes a missing parent in every hierarchy with the pod's first cgroup and never removes it, so without
 * this each run would leave an empty `/cri-conform` in every controller. What is removed: the default
 * parent (its name is the tool's mark), and of a --cgroup-parent only the directories that did not exist
 * before the run. Only when empty (rmdir refuses a cgroup with tasks or children) and only when no other
 * run of the tool on this node is alive: its runtime may be making a pod's cgroup below the parent right
 * then, and would fail if the parent vanished between its mkdir of the parent and of the pod's cgroup.
 * On the systemd driver the parent is a slice unit that runc has systemd start with the first pod, and
 * systemd keeps an empty slice active until someone stops it: the tool's own slice is stopped under the
 * same two rules, through the node's systemctl. Stopping a slice stops every unit in it, which is why
 * "empty" is read from its cgroup in every hierarchy first, after the stale container scopes below it
 * went (stale-slice-scopes.ts); a slice that stays is said, with what keeps it. Another slice (a
 * --cgroup-parent) is left.
 */
import { rmdirSync } from 'node:fs';
import { CGROUPFS_PARENT, type CgroupPlacement, parentCgroupPath, SYSTEMD_PARENT } from './cgroup-parent.js';
import type { NodeView } from './node-view.js';
import { exists, hostCgroupMounts, parseCgroupMounts } from './proc.js';
import { childCgroups, removeStalePodCgroups } from './stale-pod-cgroups.js';
import { removeStaleSliceScopes } from './stale-slice-scopes.js';
import {
  loadStateWithSystemctl,
  stopWithSystemctl,
  type UnitLoadState,
  type UnitStopper,
} from './systemd-units.js';

export interface LeaseRelease {
  removed: string[];
  /** The tool's systemd slice, when it was stopped. */
  stoppedUnit?: string;
  /** Why nothing was removed, when that was decided before looking (another run is alive). */
  keptBecause?: string;
  /**
   * The tool's slice, when it stays though no run of the tool is alive, with what keeps it (node paths of
   * the cgroups below it, or the slice's own when systemd would not stop it): a leftover to report.
   */
  keptSlice?: { unit: string; dirs: string[] };
}

interface OwnSlice {
  unit: string;
  /** The slice's cgroup directory in every hierarchy (node paths). */
  dirs: readonly string[];
  stop: UnitStopper;
  loadState: UnitLoadState;
}

export class CgroupParentLease {
  private constructor(
    private readonly view: NodeView | undefined,
    /** Node paths of parent directories this lease may remove, in every hierarchy. */
    private readonly removable: readonly string[],
    private readonly slice?: OwnSlice,
    /** The parent is the tool's own /cri-conform: every cgroup below it is a pod of the tool's. */
    private readonly ownParent = false,
  ) {}

  /** Nothing to remove: a node whose cgroups this process cannot see, or doctor once done. */
  static none(): CgroupParentLease {
    return new CgroupParentLease(undefined, []);
  }

  /**
   * Notes, before the run's first pod, which of the parent's directories already exist. The tool's slice
   * is stopped only from the node itself: from a pod, systemctl would reach no systemd or the wrong one.
   */
  static take(
    placement: CgroupPlacement,
    view: NodeView,
    stop = stopWithSystemctl,
    loadState = loadStateWithSystemctl,
  ): CgroupParentLease {
    const ownSlice = placement.driver === 'systemd' && placement.parent === SYSTEMD_PARENT && !view.inPod;
    const cgroupfsPath = placement.driver !== 'systemd' && placement.parent.startsWith('/');
    // Nothing else is the lease's: the node's mount table need not be read.
    if (!ownSlice && !cgroupfsPath) return CgroupParentLease.none();
    const mounts = hostCgroupMounts(parseCgroupMounts(view.mountinfo()));
    if (ownSlice) {
      const relative = parentCgroupPath(placement);
      const dirs = mounts.map((m) => `${m.mountPoint}${relative}`);
      return new CgroupParentLease(view, [], { unit: SYSTEMD_PARENT, dirs, stop, loadState });
    }
    const owned = placement.parent === CGROUPFS_PARENT;
    const removable: string[] = [];
    for (const mount of mounts) {
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
    return new CgroupParentLease(view, removable, undefined, owned);
  }

  /**
   * Removes what is removable and empty, deepest first; a directory in use stays without complaint.
   * @param otherRuns the runs of the tool alive on this node besides this one
   */
  release(otherRuns: readonly string[]): LeaseRelease {
    const view = this.view;
    if (!view || (this.removable.length === 0 && !this.slice)) return { removed: [] };
    if (otherRuns.length > 0)
      return { removed: [], keptBecause: `${otherRuns.length} other run(s) of cri-conform are alive` };
    if (this.slice) {
      // What the runtime left of containers the run removed keeps the slice, as on cgroupfs.
      const scopes = removeStaleSliceScopes(view, otherRuns, this.slice);
      const release = stopIfIdle(this.slice, view);
      return { ...release, removed: [...scopes, ...release.removed] };
    }
    // What the runtime left of pods the run removed (runc on cgroup v1, an abandoned create), first: it
    // would keep the parent, and `cleanup` would have to be run for what the run itself made.
    const removed = this.ownParent ? removeStalePodCgroups(view, otherRuns) : [];
    // A directory gone already, or holding a cgroup or a task, is not ours to empty.
    for (const dir of [...this.removable].sort((a, b) => b.length - a.length))
      if (removeEmpty(view.path(dir))) removed.push(dir);
    return { removed };
  }
}

/**
 * Stops the slice when its cgroup exists and holds no cgroup below it in any hierarchy; otherwise says
 * what keeps it.
 */
function stopIfIdle(slice: OwnSlice, view: NodeView): LeaseRelease {
  const present = slice.dirs.filter((dir) => exists(view.path(dir)));
  if (present.length === 0) return { removed: [] };
  const below = present.flatMap((dir) => childCgroups(view, dir));
  if (below.length > 0) return { removed: [], keptSlice: { unit: slice.unit, dirs: below } };
  if (!slice.stop(slice.unit)) return { removed: [], keptSlice: { unit: slice.unit, dirs: present } };
  // systemd removes the slice's cgroup only in the hierarchies it manages; runc made it in the others
  // (cpuset and freezer on a hybrid node) too.
  return { removed: present.filter((dir) => removeEmpty(view.path(dir))), stoppedUnit: slice.unit };
}

function removeEmpty(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

/**
 * For `cleanup`: the default cgroupfs parent a killed run left, in every hierarchy, with the empty pod
 * cgroups a runtime left below it, and the tool's systemd slice with the stale container scopes below it, once empty and no run of
 * the tool is alive. Nothing else: a --cgroup-parent of a killed run is not known here.
 */
export function removeIdleDefaultParent(
  view: NodeView,
  otherRuns: readonly string[],
  stop = stopWithSystemctl,
  loadState = loadStateWithSystemctl,
): { podCgroups: string[]; cgroupfs: LeaseRelease; systemd: LeaseRelease } {
  const own = (driver: CgroupPlacement['driver'], parent: string): CgroupPlacement => ({
    driver,
    driverSource: 'cleanup',
    parent,
    parentSource: 'default',
  });
  const podCgroups = removeStalePodCgroups(view, otherRuns);
  return {
    podCgroups,
    cgroupfs: CgroupParentLease.take(own('cgroupfs', CGROUPFS_PARENT), view).release(otherRuns),
    systemd: CgroupParentLease.take(own('systemd', SYSTEMD_PARENT), view, stop, loadState).release(otherRuns),
  };
}
