/** Reading /proc and mountinfo. Pure parsers are exported for tests; readers tolerate vanished pids. */
import { readdirSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { basename } from 'node:path';

export interface ProcInfo {
  pid: number;
  state: string; // 'R', 'S', 'Z', ...
  startTime: string; // field 22 of /proc/PID/stat: tells a reused pid from the original
  cgroups: string[]; // raw lines of /proc/PID/cgroup
  cmdline: string; // NUL separators replaced by spaces
}

/**
 * The fields of a /proc/PID/stat line after the command, from the state (field 3) on: the command may hold
 * spaces and parentheses, so the split comes after the last ')'.
 */
export function statFieldsAfterCommand(text: string): string[] | undefined {
  const close = text.lastIndexOf(')');
  return close < 0 ? undefined : text.slice(close + 2).split(' ');
}

/** Parses /proc/PID/stat for the state and the start time. */
export function parseStat(text: string): { state: string; startTime: string } | undefined {
  const fields = statFieldsAfterCommand(text);
  if (!fields) return undefined;
  const state = fields[0];
  const startTime = fields[19];
  return state && startTime ? { state, startTime } : undefined;
}

export function readProc(pid: number, root = '/proc'): ProcInfo | undefined {
  const stat = readProcStat(pid, root);
  const names = stat && readProcNames(pid, root);
  return stat && names ? { pid, ...stat, ...names } : undefined;
}

/**
 * A process's state and start time alone: one file where readProc reads three. A scan of every process
 * that only has to tell old processes from new ones (or zombies) reads this first.
 */
export function readProcStat(pid: number, root = '/proc'): Pick<ProcInfo, 'state' | 'startTime'> | undefined {
  try {
    return parseStat(readFileSync(`${root}/${pid}/stat`, 'utf8'));
  } catch {
    return undefined; // the process exited while we looked
  }
}

/**
 * Whether the process names the id anywhere: in its command line or a cgroup path. Evidence of what a
 * check's objects left takes it as it comes; stopping a process takes belongsTo.
 */
export function namesId(p: Pick<ProcInfo, 'cmdline' | 'cgroups'>, id: string): boolean {
  return p.cmdline.includes(id) || p.cgroups.some((line) => line.includes(id));
}

/** Programs whose arguments name the sandbox or container they serve: shims, conmon, OCI runtimes. */
const RUNTIME_HELPER = /shim|^conmon|^runc$|^crun$|^runsc|^youki$/;

/**
 * Whether the process is part of the sandbox or container `id`, surely enough to stop it: it sits in a
 * cgroup the runtime made for it (its path names the id, not as part of a longer hex run), or it is a
 * runtime helper with the id as a whole argument (a shim's `-id <id>`, conmon's `-c <id>`). An operator's
 * `tail -F .../<id>/log` or `grep <id>` names the id too, and is nobody's to kill.
 */
export function belongsTo(p: Pick<ProcInfo, 'cmdline' | 'cgroups'>, id: string): boolean {
  if (p.cgroups.some((line) => namesWhole(line, id))) return true;
  const args = p.cmdline.split(' ');
  return RUNTIME_HELPER.test(programOf(p.cmdline)) && args.includes(id);
}

/** The program's file name, from a command line as ProcInfo holds it: `containerd-shim-runc-v2`. */
export function programOf(cmdline: string): string {
  return basename(cmdline.split(' ')[0] ?? '');
}

const HEX = /[0-9a-f]/;

/** Whether `text` holds `id` with no hex digit on either side. */
function namesWhole(text: string, id: string): boolean {
  for (let at = text.indexOf(id); at >= 0; at = text.indexOf(id, at + 1)) {
    if (!HEX.test(text[at - 1] ?? '') && !HEX.test(text[at + id.length] ?? '')) return true;
  }
  return false;
}

/** Those of the ids that one of the processes belongs to. */
export function idsOwnedBy(
  ids: readonly string[],
  procs: readonly Pick<ProcInfo, 'cmdline' | 'cgroups'>[],
): string[] {
  return ids.filter((id) => procs.some((p) => belongsTo(p, id)));
}

/** What names a process's objects: its cgroups and command line. */
export function readProcNames(
  pid: number,
  root = '/proc',
): Pick<ProcInfo, 'cgroups' | 'cmdline'> | undefined {
  try {
    const cgroups = readFileSync(`${root}/${pid}/cgroup`, 'utf8').split('\n').filter(Boolean);
    const cmdline = readFileSync(`${root}/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    return { cgroups, cmdline };
  } catch {
    return undefined;
  }
}

export function listPids(root = '/proc'): number[] {
  return readdirSync(root)
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

export interface CgroupMount {
  /** major:minor of the hierarchy's superblock: every mount of one hierarchy has the same. */
  device: string;
  mountPoint: string;
  root: string;
  /** v1: the controllers and name= options of the hierarchy; v2: empty. */
  controllers: string[];
  version: 1 | 2;
}

/** The cgroup hierarchies mounted in this mount namespace, from mountinfo text. */
export function parseCgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const f = left.split(' ');
    const [fsType, , superOpts = ''] = right.split(' ');
    const device = f[2] ?? '';
    const root = f[3];
    const mountPoint = f[4];
    if (!root || !mountPoint) continue;
    if (fsType === 'cgroup2') mounts.push({ device, mountPoint, root, controllers: [], version: 2 });
    if (fsType === 'cgroup') {
      const controllers = superOpts
        .split(',')
        .filter((o) => o !== 'rw' && o !== 'ro' && !o.startsWith('release_agent'));
      mounts.push({ device, mountPoint, root, controllers, version: 1 });
    }
  }
  return mounts;
}

/** Where the host itself mounts its cgroup hierarchies. */
const HOST_CGROUP_ROOT = '/sys/fs/cgroup';

/**
 * One mount per hierarchy: the host's own under /sys/fs/cgroup, else the first. A chroot or a container
 * root on the host that bind-mounts the cgroup tree again shows every cgroup a second time; a leak is one
 * leak, wherever else it is visible.
 */
export function hostCgroupMounts(mounts: readonly CgroupMount[]): CgroupMount[] {
  const byDevice = new Map<string, CgroupMount>();
  const own = (m: CgroupMount) =>
    m.mountPoint === HOST_CGROUP_ROOT || m.mountPoint.startsWith(`${HOST_CGROUP_ROOT}/`);
  for (const m of mounts) {
    const chosen = byDevice.get(m.device);
    if (!chosen || (own(m) && !own(chosen))) byDevice.set(m.device, m);
  }
  return [...byDevice.values()];
}

/** A cgroup directory's path below its hierarchy's mount ("k8s.io/<id>"), the same in every hierarchy. */
export function cgroupName(dir: string, mounts: readonly CgroupMount[]): string {
  const mount = mounts
    .filter((m) => dir.startsWith(`${m.mountPoint}/`))
    .sort((a, b) => b.mountPoint.length - a.mountPoint.length)[0];
  return mount ? dir.slice(mount.mountPoint.length + 1) : dir;
}

/**
 * Maps a /proc/PID/cgroup line to its directory on this host, or undefined when no hierarchy matches. A
 * path outside the mount's root is mapped as it reads, since the snapshot looks there for the "/../" of a
 * process in another cgroup namespace; with `insideMountRoot` it maps to undefined instead, for a caller
 * that writes into the directory and must never reach one the line does not name.
 */
export function cgroupDir(
  line: string,
  mounts: readonly CgroupMount[],
  opts: { insideMountRoot?: boolean } = {},
): string | undefined {
  const first = line.indexOf(':');
  const second = line.indexOf(':', first + 1);
  if (first < 0 || second < 0) return undefined;
  const controllers = line.slice(first + 1, second);
  const path = line.slice(second + 1);
  const mount =
    controllers === ''
      ? mounts.find((m) => m.version === 2)
      : mounts.find((m) => m.version === 1 && controllers.split(',').every((c) => m.controllers.includes(c)));
  if (!mount) return undefined;
  // "/" is every path's root; a deeper root holds the path only at a "/" boundary.
  const root = mount.root.replace(/\/$/, '');
  const inside = path === root || path.startsWith(`${root}/`);
  // A "/../" path (a cgroup namespace of its own) leads out of the hierarchy.
  if (opts.insideMountRoot && (!inside || path.split('/').includes('..'))) return undefined;
  const relative = inside ? path.slice(root.length) : path;
  return `${mount.mountPoint}${relative === '/' ? '' : relative}`;
}

/** Mount points whose source, root or target mentions any of the ids. */
export function mountsMentioning(mountinfo: string, ids: readonly string[]): string[] {
  return mountinfo
    .split('\n')
    .filter((line) => ids.some((id) => line.includes(id)))
    .map((line) => line.split(' ')[4] ?? line);
}

export function inodeOf(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}

/** statfs f_type of the namespace filesystem (linux/magic.h NSFS_MAGIC, "nsfs"). */
const NSFS_MAGIC = 0x6e736673;

/** True when `path` (after symlinks) lives on nsfs: a namespace file, such as a bind-mounted netns. */
export function isNsfs(path: string): boolean {
  try {
    return statfsSync(path).type === NSFS_MAGIC;
  } catch {
    return false;
  }
}

export function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Processes (not zombies) whose cgroup or command line names one of the ids: workloads, pause, shims. With
 * `belongsTo`, only those that are part of one of the objects, for a caller that stops them.
 */
export function livingProcessesOf(
  ids: readonly string[],
  match: (p: Pick<ProcInfo, 'cmdline' | 'cgroups'>, id: string) => boolean = namesId,
): ProcInfo[] {
  const found: ProcInfo[] = [];
  for (const pid of listPids()) {
    if (pid === process.pid) continue;
    // Names first: most processes name none of the ids, and need not be read further.
    const names = readProcNames(pid);
    if (!names || !ids.some((id) => match(names, id))) continue;
    const stat = readProcStat(pid);
    if (stat && stat.state !== 'Z') found.push({ pid, ...stat, ...names });
  }
  return found;
}
