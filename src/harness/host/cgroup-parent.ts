/**
 * The cgroup parent every pod of a run gets: one of the tool's own, in the runtime's cgroup driver, as the
 * kubelet and critest always send one (`linux.cgroup_parent`). Never a kubepods path: the kubelet's own
 * pods live there, and it accounts for and evicts what it finds in it.
 */
import type { CgroupDriver, LearntDriver } from './cgroup-driver.js';

/** On the systemd driver: a slice of the tool's own, directly below the root slice. */
export const SYSTEMD_PARENT = 'cri_conform.slice';
/** On cgroupfs: a cgroup of the tool's own below each hierarchy's root. */
export const CGROUPFS_PARENT = '/cri-conform';

export interface CgroupPlacement {
  /** 'unknown' when the runtime did not say (the default parent is then the cgroupfs one). */
  driver: CgroupDriver | 'unknown';
  /** How the driver was learnt ("CRI RuntimeConfig", ...). */
  driverSource: string;
  parent: string;
  parentSource: 'default' | '--cgroup-parent';
}

/** What is wrong with a --cgroup-parent whatever the driver, or undefined; one line saying what to pass. */
export function cgroupParentSyntaxProblem(value: string): string | undefined {
  const example = `e.g. ${SYSTEMD_PARENT} (systemd driver) or ${CGROUPFS_PARENT} (cgroupfs)`;
  if (value.trim() === '' || /\s/.test(value))
    return `--cgroup-parent "${value}" is not a cgroup parent: ${example}`;
  if (value.split('/').some((part) => part === '..' || part === '.'))
    return `--cgroup-parent ${value}: no "." or ".." parts; ${example}`;
  if (value.split('/').some((part) => part.startsWith('kubepods')))
    return `--cgroup-parent ${value} is the kubelet's (kubepods): its pods live there and it evicts what it does not know; pass a parent of your own, ${example}`;
  if (value === '/' || value.endsWith('/'))
    return `--cgroup-parent ${value}: name a cgroup below the root, without a trailing "/"; ${example}`;
  if (!value.startsWith('/') && !isSliceName(value))
    return `--cgroup-parent ${value} is neither a systemd slice (*.slice) nor an absolute cgroupfs path; ${example}`;
  return undefined;
}

/** A systemd slice unit: `<name>.slice`, not the root slice `-.slice`; a path form keeps its last part. */
function isSliceName(value: string): boolean {
  const name = value.slice(value.lastIndexOf('/') + 1);
  return name.endsWith('.slice') && name !== '.slice' && name !== '-.slice';
}

/**
 * Where the parent is in each hierarchy, as a path below its root. A systemd slice nests by its dashes
 * (`a-b.slice` is `/a.slice/a-b.slice`), and containerd keeps only a slice path's last part; cgroupfs
 * takes the path as given.
 */
export function parentCgroupPath(p: Pick<CgroupPlacement, 'driver' | 'parent'>): string {
  if (p.driver === 'cgroupfs' || (p.driver === 'unknown' && !isSliceName(p.parent))) return p.parent;
  const name = p.parent.slice(p.parent.lastIndexOf('/') + 1).replace(/\.slice$/, '');
  const parts = name.split('-');
  return parts.map((_, i) => `/${parts.slice(0, i + 1).join('-')}.slice`).join('');
}

export interface PlacementDecision {
  placement: CgroupPlacement;
  /** The parent cannot work in the runtime's driver, or the run's handlers disagree: the run cannot start. */
  problem?: string;
  /** The driver is unknown: the parent is a guess, and what to pass if pods then fail. */
  warning?: string;
}

/**
 * The parent for the learnt driver, or the one given (checked against the driver). Every handler the run
 * uses must be on the same driver: one parent serves all of its pods, as one kubelet serves a node.
 */
export function placePods(learnt: LearntDriver, given: string | undefined): PlacementDecision {
  const driver = learnt.driver ?? 'unknown';
  const parent = given ?? (driver === 'systemd' ? SYSTEMD_PARENT : CGROUPFS_PARENT);
  const placement: CgroupPlacement = {
    driver,
    driverSource: learnt.source,
    parent,
    parentSource: given === undefined ? 'default' : '--cgroup-parent',
  };
  const disagreeing = [...learnt.handlers].filter(([, d]) => driver !== 'unknown' && d !== driver);
  if (disagreeing.length > 0) {
    const which = disagreeing.map(([h, d]) => `handler "${h}" is on ${d}`).join(', ');
    return {
      placement,
      problem: `the runtime's cgroup driver is ${driver} (${learnt.source}) but ${which} (its SystemdCgroup option): one cgroup parent cannot serve both; set SystemdCgroup alike in every handler the run uses`,
    };
  }
  if (driver === 'systemd' && !isSliceName(parent))
    return {
      placement,
      problem: `--cgroup-parent ${parent}: the runtime uses the systemd cgroup driver (${learnt.source}), which takes a slice: pass a *.slice name such as ${SYSTEMD_PARENT}, or leave the flag out`,
    };
  if (driver === 'cgroupfs' && !parent.startsWith('/'))
    return {
      placement,
      problem: `--cgroup-parent ${parent}: the runtime uses the cgroupfs driver (${learnt.source}), which takes an absolute path such as ${CGROUPFS_PARENT}, or leave the flag out`,
    };
  if (driver === 'unknown' && given === undefined)
    return {
      placement,
      warning: `the runtime did not say which cgroup driver it uses (${learnt.notes.join('; ')}), so pods go under ${parent} (cgroupfs); on the systemd driver pass --cgroup-parent ${SYSTEMD_PARENT}`,
    };
  return { placement };
}
