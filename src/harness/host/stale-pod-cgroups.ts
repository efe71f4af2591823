/**
 * The empty pod cgroups a runtime left below the tool's cgroupfs parent. On cgroup v1, runc removes a
 * container's cgroup from each hierarchy in turn, and a removal that meets a task still exiting (EBUSY)
 * or a runtime restarted mid-teardown leaves the directory in some hierarchies, e.g. only in cpuset. No
 * one removes it later: the runtime no longer knows the pod. Every cgroup below `/cri-conform` is a pod
 * of the tool's (the name is its mark), so `cleanup` removes those that hold nothing, deepest first, once
 * no run of the tool is alive (a live run's runtime may have made a cgroup it has not yet moved a task
 * into). rmdir refuses a cgroup with a task or a child, so a live pod's cgroup cannot be removed here.
 * Below the tool's systemd slice the scopes are named for systemd's units: stale-slice-scopes.ts.
 */
import { readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { CGROUPFS_PARENT } from './cgroup-parent.js';
import type { NodeView } from './node-view.js';
import { exists, hostCgroupMounts, parseCgroupMounts } from './proc.js';

/**
 * Removes the empty cgroups below the tool's cgroupfs parent in every hierarchy; returns their node
 * paths. Nothing while another run of the tool is alive.
 */
export function removeStalePodCgroups(view: NodeView, otherRuns: readonly string[]): string[] {
  if (otherRuns.length > 0) return [];
  const removed: string[] = [];
  for (const mount of hostCgroupMounts(parseCgroupMounts(view.mountinfo()))) {
    const parent = `${mount.mountPoint}${CGROUPFS_PARENT}`;
    if (exists(view.path(parent)))
      for (const child of childCgroups(view, parent)) removeCgroupTree(view, child, removed);
  }
  return removed;
}

/**
 * Removes `dir` after its children, when every one of them went, adding what went to `removed`; a cgroup
 * in use stays.
 */
export function removeCgroupTree(view: NodeView, dir: string, removed: string[]): boolean {
  const childrenGone = childCgroups(view, dir).every((child) => removeCgroupTree(view, child, removed));
  if (!childrenGone) return false;
  try {
    rmdirSync(view.path(dir));
    removed.push(dir);
    return true;
  } catch {
    return false;
  }
}

/** The cgroups directly below `dir` (node paths); none when it cannot be read. */
export function childCgroups(view: NodeView, dir: string): string[] {
  try {
    return readdirSync(view.path(dir), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(dir, entry.name));
  } catch {
    return [];
  }
}
