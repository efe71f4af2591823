/**
 * The empty container scopes a runtime left below the tool's systemd slice. On the systemd driver runc has
 * systemd start a transient `cri-containerd-<id>.scope` (CRI-O: `crio-<id>.scope`, `crio-conmon-<id>.scope`)
 * in the pod's slice, and makes the scope's directory itself in the cgroup v1 hierarchies systemd does not
 * manage (cpuset, freezer, cpuacct on a hybrid node). Once the container is gone systemd drops the unit and
 * removes the directories it manages; runc removes the others only when it is the one that tears the
 * container down, so a run killed mid-teardown leaves them, no one else removes them, and they keep the
 * slice from being stopped. A directory named like such a scope is stale once systemd has no unit of that
 * name loaded, or none with a task: it is then no one's but the tool's (it lies below the tool's slice), and
 * an empty unit systemd still has is stopped first. Only then, and only while no run of the tool is alive
 * (its runtime may be making a scope right then), is it removed; rmdir refuses one with a task or a child.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { SYSTEMD_PARENT } from './cgroup-parent.js';
import type { NodeView } from './node-view.js';
import { exists, hostCgroupMounts, parseCgroupMounts } from './proc.js';
import { childCgroups, removeCgroupTree } from './stale-pod-cgroups.js';
import {
  loadStateWithSystemctl,
  stopWithSystemctl,
  type UnitLoadState,
  type UnitStopper,
} from './systemd-units.js';

/** A container's scope as runc's systemd driver names it (64 hex digits: the container id). */
const RUNTIME_SCOPE = /^(?:cri-containerd|crio|crio-conmon)-[0-9a-f]{64}\.scope$/;

/** What systemd answers for a unit it does not have. */
const NO_SUCH_UNIT = 'not-found';

/**
 * Removes the stale scope directories below the tool's slice in every hierarchy, stopping first a scope
 * unit systemd still has with no task left (in the v1 layout systemd is not told when a cgroup empties);
 * returns their node paths. Nothing while another run of the tool is alive.
 */
export function removeStaleSliceScopes(
  view: NodeView,
  otherRuns: readonly string[],
  systemd: { loadState: UnitLoadState; stop: UnitStopper } = {
    loadState: loadStateWithSystemctl,
    stop: stopWithSystemctl,
  },
): string[] {
  if (otherRuns.length > 0) return [];
  const removed: string[] = [];
  for (const scope of staleSliceScopes(view, systemd.loadState)) {
    if (scope.loaded && !systemd.stop(scope.unit)) continue;
    for (const dir of scope.dirs) removeCgroupTree(view, dir, removed);
  }
  return removed;
}

export interface StaleScope {
  unit: string;
  /** Its directory in every hierarchy that has one (node paths). */
  dirs: string[];
  /** systemd still has the unit (active with no task). */
  loaded: boolean;
}

/**
 * The container scopes below the tool's slice that hold no task in any hierarchy, or whose unit systemd no
 * longer has at all; a scope systemd could not be asked about is not stale.
 */
export function staleSliceScopes(
  view: NodeView,
  loadState: UnitLoadState = loadStateWithSystemctl,
): StaleScope[] {
  const dirsOf = new Map<string, string[]>();
  for (const mount of hostCgroupMounts(parseCgroupMounts(view.mountinfo()))) {
    const slice = `${mount.mountPoint}/${SYSTEMD_PARENT}`;
    if (!exists(view.path(slice))) continue;
    for (const dir of childCgroups(view, slice)) {
      const unit = basename(dir);
      if (RUNTIME_SCOPE.test(unit)) dirsOf.set(unit, [...(dirsOf.get(unit) ?? []), dir]);
    }
  }
  const stale: StaleScope[] = [];
  // Asked once per scope, not once per hierarchy.
  for (const [unit, dirs] of dirsOf) {
    const state = loadState(unit);
    if (state === NO_SUCH_UNIT) stale.push({ unit, dirs, loaded: false });
    else if (state !== undefined && dirs.every((dir) => holdsNoTask(view, dir)))
      stale.push({ unit, dirs, loaded: true });
  }
  return stale;
}

/** No process in the cgroup (its cgroup.procs is empty, or gone with it). */
function holdsNoTask(view: NodeView, dir: string): boolean {
  try {
    return readFileSync(view.path(`${dir}/cgroup.procs`), 'utf8').trim() === '';
  } catch {
    return true;
  }
}
