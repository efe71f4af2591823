/**
 * The cgroups of a private instance's containers, found by the container ids they are named after, in
 * every hierarchy of the node; removed with rmdir, which fails while a process is still in one.
 */
import { rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { type NodeView, thawCgroupDir } from '../harness/runtime-instance.js';
import { isDir, readdirSafe } from './dir-entries.js';
import { readTextOrEmpty } from './read-text.js';

const CGROUP_ROOT = '/sys/fs/cgroup';
/** How deep below each hierarchy's root the runtimes put container cgroups (kubepods/burstable/pod.../id). */
const MAX_DEPTH = 6;

/**
 * The container id a cgroup's name carries: containerd's cgroupfs names it by the id alone, CRI-O by
 * `crio-<id>` and `crio-conmon-<id>`, the systemd drivers by `<prefix>-<id>.scope`.
 */
export function idOfCgroup(name: string): string | undefined {
  return /^(?:[a-z-]+-)?([0-9a-f]{64})(?:\.scope)?$/.exec(name)?.[1];
}

/** Cgroup directories named after one of the ids, up to six levels below each hierarchy. */
export function cgroupDirs(ids: readonly string[], node: NodeView): string[] {
  if (ids.length === 0) return [];
  const wanted = new Set(ids);
  const found: string[] = [];
  const walk = (d: string, depth: number) => {
    for (const name of readdirSafe(d)) {
      const path = join(d, name);
      if (!isDir(path)) continue;
      if (wanted.has(idOfCgroup(name) ?? '')) {
        found.push(path);
        // CRI-O (conmon_cgroup = "pod", cgroupfs) nests crio-<id> inside crio-conmon-<id>.
        walk(path, MAX_DEPTH);
      } else if (depth < MAX_DEPTH) walk(path, depth + 1);
    }
  };
  walk(node.path(CGROUP_ROOT), 0);
  return found;
}

/**
 * The processes still in these cgroups (cgroupDirs) once the instance's daemon and shims are gone (a pause
 * or `runc init` whose shim was killed), to be killed: each cgroup is thawed first if it was left frozen,
 * or they could never end.
 */
export function processesInCgroups(dirs: readonly string[]): number[] {
  const pids = new Set<number>();
  for (const dir of dirs) {
    thawCgroupDir(dir);
    for (const line of readTextOrEmpty(join(dir, 'cgroup.procs')).split('\n')) {
      const pid = Number(line);
      // 0: a process of another pid namespace than this one's.
      if (Number.isInteger(pid) && pid > 0) pids.add(pid);
    }
  }
  return [...pids];
}

/** Removes these cgroups (cgroupDirs), deepest first; one with a process in it stays, for the caller to report. */
export function removeCgroups(dirs: readonly string[]): void {
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
    try {
      // rmSync refuses a directory unless recursive, and recursive would unlink a cgroup's control files.
      rmdirSync(d);
    } catch {
      // rmdir of a cgroup with processes fails; the removal's second look reports it
    }
  }
}
