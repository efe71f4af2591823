/**
 * Thawing a frozen cgroup of the tool's own so that its processes can end. runc's systemd driver freezes a
 * cgroup v1 container's cgroup while it sets the unit's device rules and thaws it afterwards; a create
 * killed in between leaves `runc init` FROZEN, asleep in the kernel's refrigerator where SIGKILL cannot
 * reach it, and its cgroup can never be removed. Callers thaw only cgroups of their own sandboxes and
 * containers, then kill what is in them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeView } from './node-view.js';
import { type CgroupMount, cgroupDir, hostCgroupMounts, parseCgroupMounts } from './proc.js';

/**
 * Thaws the frozen cgroups the process is in whose path names one of `ids` (the caller's own sandboxes
 * and containers), as `view` sees the node; true when one was frozen.
 */
export function thawCgroupsOfProcess(pid: number, view: NodeView, ids: readonly string[]): boolean {
  return freezableCgroupsOfProcess(pid, view)
    .filter((dir) => ids.some((id) => dir.includes(id)))
    .map((dir) => thawCgroupDir(dir))
    .some(Boolean);
}

/**
 * ", frozen in its cgroup" when the process sits in a frozen cgroup ('' otherwise), for a leftover's
 * description: such a process outlives every SIGKILL, which is another failure than a process not killed.
 */
export function frozenNote(pid: number, view: NodeView): string {
  return freezableCgroupsOfProcess(pid, view).some(isFrozenDir) ? ', frozen in its cgroup' : '';
}

/** Thaws a frozen cgroup directory (v1 `freezer.state`, v2 `cgroup.freeze`); true when it was frozen. */
export function thawCgroupDir(dir: string): boolean {
  return (
    (isFrozen(join(dir, 'freezer.state'), V1_FROZEN) && written(join(dir, 'freezer.state'), 'THAWED')) ||
    (isFrozen(join(dir, 'cgroup.freeze'), V2_FROZEN) && written(join(dir, 'cgroup.freeze'), '0'))
  );
}

const V1_FROZEN = /^(FROZEN|FREEZING)$/;
const V2_FROZEN = /^1$/;

function isFrozenDir(dir: string): boolean {
  return isFrozen(join(dir, 'freezer.state'), V1_FROZEN) || isFrozen(join(dir, 'cgroup.freeze'), V2_FROZEN);
}

function isFrozen(file: string, frozen: RegExp): boolean {
  try {
    return frozen.test(readFileSync(file, 'utf8').trim());
  } catch {
    return false;
  }
}

function written(file: string, text: string): boolean {
  try {
    writeFileSync(file, text);
    return true;
  } catch {
    return false;
  }
}

/** The process's freezer and v2 cgroup directories, as this process can open them; none once it is gone. */
function freezableCgroupsOfProcess(pid: number, view: NodeView): string[] {
  let procCgroup: string;
  try {
    procCgroup = readFileSync(`/proc/${pid}/cgroup`, 'utf8');
  } catch {
    return [];
  }
  const mounts = hostCgroupMounts(parseCgroupMounts(view.mountinfo()));
  return freezableCgroupsOf(procCgroup, mounts).map((dir) => view.path(dir));
}

/**
 * The cgroup directories in which a process can be frozen, from its /proc/PID/cgroup text: its cgroup in
 * the v1 freezer hierarchy and its v2 cgroup, each below that hierarchy's mount.
 */
export function freezableCgroupsOf(procCgroup: string, mounts: readonly CgroupMount[]): string[] {
  return procCgroup
    .split('\n')
    .filter((line) => {
      const controllers = line.split(':')[1];
      return controllers === '' || controllers?.split(',').includes('freezer') === true;
    })
    .flatMap((line) => cgroupDir(line, mounts, { insideMountRoot: true }) ?? []);
}
