/**
 * Leftovers found without knowing ids in advance: a baseline of the host before a trial, and after it
 * everything new that belongs to the trial. Other runtimes and other runs on the same host create and
 * remove things all the time, so nothing is blamed unless it is new since the baseline *and* belongs to
 * the trial: by an id the trial learnt (from the runtime's own records, the injectors' logs, NRI events,
 * CRI), by a cgroup path or mount naming such an id, or, for a network namespace, by its owner (the
 * sandbox the CNI set it up for, or a process of the trial seen in it).
 */
import { readdirSync } from 'node:fs';
import { shortId } from '../core/ids.js';
import { frozenNote } from './frozen-cgroups.js';
import type { HostLeak } from './host-findings.js';
import { type NodeView, ON_NODE } from './node-view.js';
import {
  type CgroupMount,
  cgroupName,
  exists,
  hostCgroupMounts,
  inodeOf,
  listPids,
  namesId,
  type ProcInfo,
  parseCgroupMounts,
  programOf,
  readProc,
  readProcStat,
} from './proc.js';

const NETNS_DIRS = ['/run/netns', '/var/run/netns'];
/** containerd nests pod cgroups two or three levels down (k8s.io/<id>, kubepods/.../<id>). */
const CGROUP_SCAN_DEPTH = 3;
/** Below the run's cgroup parent: the pods' cgroups, and CRI-O's container cgroups in its conmon's. */
const PARENT_SCAN_DEPTH = 2;

export interface HostBaseline {
  /** "pid:starttime" of every process alive at the baseline. */
  processes: Set<string>;
  /** Network namespace files (path -> inode). */
  netns: Map<string, number>;
  /** Mount points. */
  mounts: Set<string>;
  /** Cgroup directories a few levels down the host's hierarchies. */
  cgroups: Set<string>;
}

export interface TrialClues {
  /** Sandbox and container ids the trial learnt, from any source. */
  ids: readonly string[];
  /** Network namespaces and the sandbox ids they were set up for (the slow CNI's log, probes). */
  netnsOwners?: ReadonlyMap<string, string>;
  /** Ids that existed before the trial (an earlier trial's leak): neither blamed again nor followed. */
  known?: ReadonlySet<string>;
}

/** @param parentPath the run's cgroup parent below each hierarchy's root (any depth), scanned too */
export function takeBaseline(view: NodeView = ON_NODE, parentPath?: string): HostBaseline {
  const processes = new Set<string>();
  for (const pid of listPids()) {
    const stat = readProcStat(pid);
    if (stat) processes.add(processKey(pid, stat.startTime));
  }
  const cgroups = new Set(walkCgroups(hostCgroups(view), () => false, true, view, parentPath));
  return { processes, netns: listNetns(view), mounts: new Set(mountPoints(view)), cgroups };
}

/**
 * Net namespaces of the trial's ids' processes that are alive now (path -> owner id), for later blame. The
 * trial's processes all started after its baseline, so those alive at it are passed over unread. A process
 * in the node's own network namespace tells nothing of a pod's: runtime helpers live there (conmon, a shim,
 * a slow handler's wrapper, all naming the id they serve), and the file a host-network sandbox pins is that
 * same namespace (CRI-O's pinns --net=host bind-mounts it under namespaces_dir), so by inode every helper
 * would own another pod's pin.
 */
export function netnsOwnedBy(
  ids: readonly string[],
  view: NodeView = ON_NODE,
  baseline?: HostBaseline,
): Map<string, string> {
  const owners = new Map<string, string>();
  const byInode = new Map([...listNetns(view)].map(([path, inode]) => [inode, path]));
  const processes = processesNewSince(baseline);
  const nodeNet = nodeNetns(view, processes);
  for (const p of processes) {
    const owner = ids.find((id) => namesId(p, id));
    if (!owner) continue;
    const inode = inodeOf(`/proc/${p.pid}/ns/net`);
    const path = inode === undefined || nodeNet.has(inode) ? undefined : byInode.get(inode);
    if (path) owners.set(path, owner);
  }
  return owners;
}

/** Programs that run in the runtime's network namespace, never a pod's: containerd shims, conmon, conmon-rs. */
const RUNTIME_SIDE = /^containerd-shim|^conmon(rs)?$/;

/**
 * The node's own network namespaces (inodes): PID 1's, this process's, the view's anchor's, and those the
 * runtime's shims and conmons among `processes` live in (a runtime in a namespace of its own pins that one
 * for a host-network sandbox).
 */
function nodeNetns(view: NodeView, processes: readonly ProcInfo[]): Set<number> {
  const pids = ['1', 'self', ...(view.anchor === undefined ? [] : [String(view.anchor)])];
  for (const p of processes) {
    if (RUNTIME_SIDE.test(programOf(p.cmdline))) pids.push(String(p.pid));
  }
  const inodes = new Set<number>();
  for (const pid of pids) {
    const inode = inodeOf(`/proc/${pid}/ns/net`);
    if (inode !== undefined) inodes.add(inode);
  }
  return inodes;
}

/** "pid:starttime": a process, told apart from a later one that reuses its pid. */
function processKey(pid: number, startTime: string): string {
  return `${pid}:${startTime}`;
}

/**
 * The living processes (not zombies, not this one) that were not alive at the baseline (all of them
 * without one). Each old process costs one read: the scan runs for every trial, on nodes with thousands.
 */
function processesNewSince(baseline?: HostBaseline): ProcInfo[] {
  const found: ProcInfo[] = [];
  for (const pid of listPids()) {
    if (pid === process.pid) continue;
    const stat = readProcStat(pid);
    if (!stat || stat.state === 'Z' || baseline?.processes.has(processKey(pid, stat.startTime))) continue;
    const p = readProc(pid);
    if (p && p.state !== 'Z') found.push(p);
  }
  return found;
}

/** What is new since the baseline, still there, and belongs to the trial. */
export function newSince(
  baseline: HostBaseline,
  evidence: TrialClues,
  view: NodeView = ON_NODE,
  parentPath?: string,
): HostLeak[] {
  const ids = evidence.ids.filter((id) => id.length >= 12 && !evidence.known?.has(id));
  const mentions = (text: string) => ids.find((id) => text.includes(id));
  const leaks: HostLeak[] = [];
  for (const p of processesNewSince(baseline)) {
    const id = mentions(p.cmdline) ?? p.cgroups.map(mentions).find(Boolean);
    if (id)
      leaks.push({
        kind: 'process',
        what: `pid ${p.pid} (${p.cmdline.slice(0, 80)}) of ${shortId(id)} is alive${frozenNote(p.pid, view)}`,
        object: `pid ${p.pid}`,
        of: id,
      });
  }
  const cgroupMounts = hostCgroups(view);
  for (const dir of cgroupDirsNaming(ids, cgroupMounts, view, parentPath)) {
    if (!baseline.cgroups.has(dir))
      leaks.push({
        kind: 'cgroup',
        what: dir,
        object: cgroupName(dir, cgroupMounts),
        ...ofId(mentions(dir)),
      });
  }
  for (const m of mountPoints(view)) {
    const id = baseline.mounts.has(m) ? undefined : mentions(m);
    if (id) leaks.push({ kind: 'mount', what: `${m} is mounted`, object: m, of: id });
  }
  const owners = evidence.netnsOwners ?? new Map<string, string>();
  for (const [path, inode] of listNetns(view)) {
    if (baseline.netns.get(path) === inode) continue;
    const owner = owners.get(path);
    if (owner)
      leaks.push({
        kind: 'netns',
        what: `${path} (of ${shortId(owner)}) still exists`,
        object: path,
        of: owner,
      });
  }
  return leaks;
}

const ofId = (id: string | undefined) => (id === undefined ? {} : { of: id });

/**
 * Which of these leftovers that newSince found are there still, each looked at by itself: the cheap look
 * that a wait for the runtime to reap them repeats, where newSince reads the whole host. A runtime record
 * is kept: its reader is the caller's.
 */
export function stillThere(leaks: readonly HostLeak[], view: NodeView = ON_NODE): HostLeak[] {
  let mounts: Set<string> | undefined;
  const mounted = (m: string) => {
    mounts ??= new Set(mountPoints(view));
    return mounts.has(m);
  };
  return leaks.filter((leak) => isThere(leak, mounted, view));
}

function isThere(leak: HostLeak, mounted: (m: string) => boolean, view: NodeView): boolean {
  switch (leak.kind) {
    case 'process': {
      const stat = readProcStat(Number(/^pid (\d+)$/.exec(leak.object ?? '')?.[1]));
      return stat !== undefined && stat.state !== 'Z';
    }
    case 'cgroup':
      return exists(view.path(leak.what));
    case 'mount':
      return mounted(leak.object ?? leak.what);
    case 'netns':
      return exists(view.path(leak.object ?? leak.what));
    case 'runtime-record':
      return true;
  }
}

/**
 * Network namespace files under /run/netns (and /var/run/netns when it is not the same dir), and under the
 * runtime's own netns folders (a CRI-O namespaces_dir, a private instance's): path -> inode.
 */
export function listNetns(view: NodeView = ON_NODE): Map<string, number> {
  const found = new Map<string, number>();
  const seen = new Set<number>();
  for (const dir of [...NETNS_DIRS, ...view.netnsDirs]) {
    let names: string[] = [];
    try {
      names = readdirSync(view.path(dir));
    } catch {
      continue;
    }
    for (const name of names) {
      const inode = inodeOf(view.path(`${dir}/${name}`));
      // /var/run is usually a link to /run: one entry per namespace file.
      if (inode !== undefined && !seen.has(inode)) {
        seen.add(inode);
        found.set(`${dir}/${name}`, inode);
      }
    }
  }
  return found;
}

function mountPoints(view: NodeView): string[] {
  return view
    .mountinfo()
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter(Boolean);
}

/** The cgroup hierarchies as the host itself mounts them (one mount each). */
function hostCgroups(view: NodeView): CgroupMount[] {
  return hostCgroupMounts(parseCgroupMounts(view.mountinfo()));
}

/**
 * Cgroup directories a few levels down every hierarchy, and below the run's cgroup parent there. The walk
 * keeps a directory whose name `stops` it and does not go below it; with `all`, it keeps every directory
 * it passes too.
 */
function walkCgroups(
  mounts: readonly CgroupMount[],
  stops: (name: string) => boolean,
  all: boolean,
  view: NodeView,
  parentPath?: string,
): string[] {
  const found = new Set<string>();
  // The run's parent is often within the walk from the root already (cgroupfs: /cri-conform): each
  // directory is read once, at the greatest depth asked of it.
  const walkedTo = new Map<string, number>();
  const walk = (dir: string, depth: number) => {
    if ((walkedTo.get(dir) ?? 0) >= depth) return;
    walkedTo.set(dir, depth);
    let entries: import('node:fs').Dirent[] = [];
    try {
      entries = readdirSync(view.path(dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const path = `${dir}/${e.name}`;
      if (all || stops(e.name)) found.add(path);
      if (!stops(e.name) && depth > 1) walk(path, depth - 1);
    }
  };
  for (const root of new Set(mounts.map((m) => m.mountPoint))) {
    walk(root, CGROUP_SCAN_DEPTH);
    if (parentPath) walk(`${root}${parentPath}`, PARENT_SCAN_DEPTH);
  }
  return [...found];
}

/** Cgroup directories (any hierarchy, a few levels down) whose name contains one of the ids. */
export function cgroupDirsNaming(
  ids: readonly string[],
  mounts: readonly CgroupMount[],
  view: NodeView,
  parentPath?: string,
): string[] {
  if (ids.length === 0) return [];
  const naming = (name: string) => ids.some((id) => name.includes(id));
  return walkCgroups(mounts, naming, false, view, parentPath).filter((d) => exists(view.path(d)));
}
