/**
 * What the host holds for a pod, seen from /proc, cgroupfs, /run/netns and mountinfo. Runtimes embed the
 * sandbox and container ids in cgroup paths, shim command lines and mount paths, so ids find them without
 * knowing which runtime this is.
 */
import type { CriClient } from '../../cri/client.js';
import type { HostProbe, NetnsKind, ReapingGrace } from '../check/context.js';
import { errorMessage, SkipSignal } from '../core/errors.js';
import { shortId } from '../core/ids.js';
import { RUN_LABEL } from '../core/labels.js';
import { OwnIds } from '../core/own-ids.js';
import { sleep } from '../core/waits.js';
import { frozenNote, thawCgroupsOfProcess } from '../host/frozen-cgroups.js';
import {
  cgroupDirsNaming,
  type HostBaseline,
  listNetns,
  netnsOwnedBy,
  newSince,
  stillThere,
  type TrialClues,
  takeBaseline,
} from '../host/host-diff.js';
import type { HostLeak, PodHostSnapshot } from '../host/host-findings.js';
import { type NodeView, ON_NODE } from '../host/node-view.js';
import {
  belongsTo,
  cgroupDir,
  cgroupName,
  exists,
  hostCgroupMounts,
  idsOwnedBy,
  inodeOf,
  isNsfs,
  livingProcessesOf,
  mountsMentioning,
  type ProcInfo,
  parseCgroupMounts,
  readProc,
  readProcStat,
} from '../host/proc.js';
import { readContainerd, readContainerdRecords } from './containerd-records.js';
import { CreationWatch } from './creation-watch.js';

/** PID 1 here reaps slowly: look this long before calling a lingering process a leak. */
export const REAP_GRACE_MS = 2_500;
/**
 * How often to look again at what a whole scan found while the runtime reaps it: a look at only that is
 * cheap for the host, but a task left among it asks every shim, so no more often than a whole look did.
 */
const REAP_POLL_MS = 250;
/** How long a killed stray process may take to be gone, and how often to look. */
const STRAY_GONE_WITHIN_MS = 2_000;
const STRAY_POLL_MS = 50;

/** Processes of the run's own ids that the runtime lost track of (NodeHostProbe.endStrays). */
export interface Strays {
  /** Killed: neither the CRI nor the runtime's records knew their ids. */
  ended: string[];
  /**
   * Left running: the runtime's records could not be read, so whether it still knows them is open; or the
   * process outlived SIGKILL (a process in uninterruptible sleep does for a while).
   */
  left: string[];
  /**
   * The ids of the processes still running: those in `left`, and those the runtime's records still name
   * though the CRI lists them no more. What a later `cleanup` looks for them by (lost-ids.ts).
   */
  leftIds: string[];
}

export class NodeHostProbe implements HostProbe {
  readonly available = true;
  /** The run's own ids as they are learnt: from the runtime's records by the run's labels, and CRI errors. */
  readonly ownIds = new OwnIds();
  /**
   * @param endpoint the CRI endpoint; when it also serves containerd's own API, its records are probed too
   * @param view where this process sees the node's files and mounts (from a pod: through a node process)
   * @param parentPath the run's cgroup parent below each hierarchy's root: pods' cgroups are looked for
   *   below it too, whatever its depth (a systemd slice nests by its dashes)
   */
  constructor(
    private readonly endpoint?: string,
    private readonly view: NodeView = ON_NODE,
    private readonly parentPath?: string,
  ) {}

  /**
   * Learns as the run's own every record containerd makes with all of the run's marks, from now until the
   * watch is stopped (CreationWatch); undefined without an endpoint to watch.
   */
  watchCreations(runId: string): CreationWatch | undefined {
    const { endpoint } = this;
    return endpoint ? CreationWatch.start(endpoint, runId, (id) => this.ownIds.add([id])) : undefined;
  }

  /** The client, learning the ids of what its calls make as the run's own (the injector proof's pods). */
  learningFrom(client: CriClient): CriClient {
    return client.alsoObserved((r) => this.ownIds.addMade(r.method, r.reply));
  }

  async snapshot(podId: string, containerIds: string[] = []): Promise<PodHostSnapshot> {
    const ids = [podId, ...containerIds];
    const processes = livingProcessesOf(ids);
    if (processes.length === 0) {
      throw new SkipSignal(
        `no process of pod ${shortId(podId)} is visible on this host: run cri-conform on the runtime's node as root, or pass --node-probes off`,
      );
    }
    const mountinfo = this.view.mountinfo();
    const mounts = hostCgroupMounts(parseCgroupMounts(mountinfo));
    const cgroupDirs = new Set<string>();
    let outsideOurNamespace = false;
    for (const p of processes) {
      for (const line of readProc(p.pid)?.cgroups ?? []) {
        const dir = cgroupDir(line, mounts);
        // From a pod with a cgroup namespace of its own, a node process's cgroup reads "/../../k8s.io/<id>":
        // relative to the pod's cgroup, which this process cannot name.
        if (dir?.includes('/../')) outsideOurNamespace = true;
        else if (dir && ids.some((id) => dir.includes(id))) cgroupDirs.add(dir);
      }
    }
    // Then the node's hierarchies are searched for the ids instead, as the leak diff does.
    if (outsideOurNamespace)
      for (const dir of cgroupDirsNaming(ids, mounts, this.view, this.parentPath)) cgroupDirs.add(dir);
    return {
      podId,
      ids,
      processes: processes.map(({ pid, startTime, cmdline }) => ({ pid, startTime, cmdline })),
      cgroupDirs: [...cgroupDirs],
      netnsPath: netnsOf(
        processes.map((p) => p.pid),
        this.view,
      ),
      mounts: mountsMentioning(mountinfo, ids),
    };
  }

  async leftovers(snapshot: PodHostSnapshot, opts: ReapingGrace = {}): Promise<HostLeak[]> {
    const scan = async () => [
      ...findLeaks(snapshot, this.view),
      ...(await this.runtimeRecordsOf(snapshot.ids)),
    ];
    return this.untilReaped(scan, opts);
  }

  async stillHeld(ids: readonly string[]): Promise<HostLeak[]> {
    const processes = livingProcessesOf(ids).map(
      (p): HostLeak => ({ kind: 'process', what: `pid ${p.pid} (${p.cmdline.slice(0, 80)}) references it` }),
    );
    return [...processes, ...(await this.runtimeRecordsOf(ids))];
  }

  netnsKind(path: string): NetnsKind {
    if (!exists(this.view.path(path))) return 'absent';
    return isNsfs(this.view.path(path)) ? 'netns' : 'not-a-namespace';
  }

  async baseline(): Promise<HostBaseline> {
    return takeBaseline(this.view, this.parentPath);
  }

  netnsOwners(ids: readonly string[], baseline?: HostBaseline): Map<string, string> {
    return netnsOwnedBy(ids, this.view, baseline);
  }

  async recordIds(labels: Readonly<Record<string, string>>): Promise<string[]> {
    return (await this.labelledRecords(labels)).map((r) => r.id);
  }

  async newLeftovers(
    baseline: HostBaseline,
    evidence: TrialClues & { labels: Readonly<Record<string, string>> },
    opts: ReapingGrace = {},
  ): Promise<HostLeak[]> {
    const scan = async () => {
      const records = (await this.labelledRecords(evidence.labels)).filter((r) => !evidence.known?.has(r.id));
      const ids = [...new Set([...evidence.ids, ...records.map((r) => r.id)])];
      return [
        ...newSince(baseline, { ...evidence, ids }, this.view, this.parentPath),
        ...records.map(
          (r): HostLeak => ({ kind: 'runtime-record', what: r.what, object: `container ${r.id}`, of: r.id }),
        ),
      ];
    };
    return this.untilReaped(scan, opts);
  }

  /**
   * What `scan` finds once the runtime has had the grace to reap it. While something is left, only that is
   * looked at again (host-diff stillThere, recordsKept), which is cheap; a whole scan has the last word,
   * once that is gone (something new may have come meanwhile) or when the grace is over. The wait, which
   * starts only when the first scan found something, runs through `grace.rest`.
   */
  private async untilReaped(
    scan: () => Promise<HostLeak[]>,
    { withinMs = REAP_GRACE_MS, rest = (wait) => wait() }: ReapingGrace,
  ): Promise<HostLeak[]> {
    const endAt = Date.now() + withinMs;
    const first = await scan();
    if (first.length === 0 || Date.now() >= endAt) return first;
    return rest(async () => {
      let leaks = first;
      while (leaks.length > 0 && Date.now() < endAt) {
        await sleep(REAP_POLL_MS);
        const kept = await this.recordsKept(leaks);
        const left = stillThere(leaks, this.view).filter(
          (l) => l.kind !== 'runtime-record' || kept.has(l.object ?? ''),
        );
        leaks = left.length > 0 && Date.now() < endAt ? left : await scan();
      }
      return leaks;
    });
  }

  /**
   * Which of the runtime records among these leftovers ("container <id>", "task <id>") containerd still
   * keeps: its containers, which asks no shim, and its tasks (every shim is asked) only when a task is
   * among them.
   */
  private async recordsKept(leaks: readonly HostLeak[]): Promise<Set<string>> {
    const objects = leaks.flatMap((l) => (l.kind === 'runtime-record' && l.object ? [l.object] : []));
    const kept = new Set<string>();
    if (objects.length === 0) return kept;
    for (const c of (await readContainerd(this.endpoint, (s) => s.containers())) ?? [])
      kept.add(`container ${c.id}`);
    if (objects.some((o) => o.startsWith('task ')))
      for (const t of (await readContainerd(this.endpoint, (s) => s.tasks())) ?? [])
        kept.add(`task ${t.containerId}`);
    return kept;
  }

  /**
   * The runtime's own containers that carry all the labels (containerd, namespace k8s.io), each with its
   * task's pid. Tasks carry no labels, so they are asked for (of every shim) only when a container is left.
   */
  private async labelledRecords(labels: Readonly<Record<string, string>>) {
    const containers = await readContainerd(this.endpoint, (s) => s.containers());
    const mine = (containers ?? []).filter((c) =>
      Object.entries(labels).every(([k, v]) => c.labels[k] === v),
    );
    if (labels[RUN_LABEL]) this.ownIds.add(mine.map((c) => c.id));
    const tasks = mine.length > 0 ? await readContainerd(this.endpoint, (s) => s.tasks()) : undefined;
    return mine.map((c) => {
      const task = tasks?.find((t) => t.containerId === c.id);
      const what = `containerd container ${shortId(c.id)}${task ? ` with task pid ${task.pid}` : ''} is still there`;
      return { id: c.id, what };
    });
  }

  /**
   * Waits, within the grace a runtime has to reap (REAP_GRACE_MS), until no process belongs to the ids of
   * objects just removed: one that is still exiting is not lost.
   */
  async untilReapedOf(ids: readonly string[]): Promise<void> {
    const endAt = Date.now() + REAP_GRACE_MS;
    while (ids.length > 0 && livingProcessesOf(ids, belongsTo).length > 0 && Date.now() < endAt)
      await sleep(REAP_POLL_MS);
  }

  /**
   * After the final sweep: processes that still name one of the run's own ids though neither the CRI (ids
   * in `listed`) nor the runtime's records know that id any more. The runtime lost track of them (a shim
   * of an abandoned create, say), so nothing else will ever stop them: they are the run's, and are killed.
   */
  async endStrays(listed: ReadonlySet<string>): Promise<Strays> {
    const ids = this.ownIds.all().filter((id) => !listed.has(id));
    const strays = ids.length === 0 ? [] : livingProcessesOf(ids, belongsTo);
    if (strays.length === 0) return { ended: [], left: [], leftIds: [] };
    const known = await this.recordedIds();
    const thawed = new Set<number>();
    const describe = (p: ProcInfo) =>
      `pid ${p.pid} (${p.cmdline.slice(0, 100)})${thawed.has(p.pid) ? ' thawed from its frozen cgroup' : ''}`;
    if ('cannotTell' in known)
      return {
        ended: [],
        left: strays.map((p) => `${describe(p)}: ${known.cannotTell}`),
        leftIds: idsOwnedBy(ids, strays),
      };
    const lost = strays.filter((p) => !ids.some((id) => known.has(id) && belongsTo(p, id)));
    const alive = () =>
      lost.filter((p) => {
        // Still the process that was found: a reused pid is someone else's.
        const now = readProcStat(p.pid);
        return now?.startTime === p.startTime && now.state !== 'Z';
      });
    for (const p of alive()) {
      // A frozen process never sees SIGKILL; only the cgroups that name one of the run's ids are thawed (a
      // shim sits in the runtime's cgroup, which is not the run's).
      if (thawCgroupsOfProcess(p.pid, this.view, ids)) thawed.add(p.pid);
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Gone meanwhile; one that could not be killed shows in `left` below.
      }
    }
    const endAt = Date.now() + STRAY_GONE_WITHIN_MS;
    while (alive().length > 0 && Date.now() < endAt) await sleep(STRAY_POLL_MS);
    const survivors = alive();
    // A process whose id the runtime still records is left alone, and its id kept: once the runtime drops
    // the record (a cleanup that is not done yet), a later cleanup finds the process lost.
    const recorded = strays.filter((p) => !lost.includes(p));
    return {
      ended: lost.filter((p) => !survivors.includes(p)).map(describe),
      left: survivors.map((p) => `${describe(p)}: it outlived SIGKILL`),
      leftIds: idsOwnedBy(ids, [...survivors, ...recorded]),
    };
  }

  /**
   * Ids of every container and task the runtime keeps (containerd); where nothing can tell whether it still
   * keeps an id the CRI does not list, why not: a process is then left, and said so.
   */
  async recordedIds(): Promise<Set<string> | { cannotTell: string }> {
    if (!this.endpoint) return new Set();
    try {
      const records = await readContainerdRecords(this.endpoint);
      if (!records)
        return {
          cannotTell:
            'the runtime keeps no records beside the CRI to tell a lost process from a build it holds unlisted (CRI-O holds a timed-out one for the retry, and lets it go a minute or two later unless a retry claims it: run cleanup again then)',
        };
      return new Set([...records.containers.map((c) => c.id), ...records.tasks.map((t) => t.containerId)]);
    } catch (e) {
      return { cannotTell: `containerd's records could not be read (${errorMessage(e)})` };
    }
  }

  /** Containers and tasks the runtime still keeps for the ids, though the CRI no longer shows them. */
  private async runtimeRecordsOf(ids: readonly string[]): Promise<HostLeak[]> {
    // A read that keeps failing throws (RecordsUnreadError): a verdict needs them.
    const records = await readContainerdRecords(this.endpoint);
    if (!records) return [];
    const mine = (id: string) => ids.includes(id);
    return [
      ...records.tasks
        .filter((t) => mine(t.containerId))
        .map(
          (t): HostLeak => ({
            kind: 'runtime-record',
            what: `containerd task ${shortId(t.containerId)} (pid ${t.pid}) is still there`,
            object: `task ${t.containerId}`,
            of: t.containerId,
          }),
        ),
      ...records.containers
        .filter((c) => mine(c.id))
        .map(
          (c): HostLeak => ({
            kind: 'runtime-record',
            what: `containerd container ${shortId(c.id)} is still there`,
            object: `container ${c.id}`,
            of: c.id,
          }),
        ),
    ];
  }
}

function findLeaks(s: PodHostSnapshot, view: NodeView): HostLeak[] {
  const leaks: HostLeak[] = [];
  const seen = new Set<number>();
  for (const p of s.processes) {
    const now = readProc(p.pid);
    if (now && now.startTime === p.startTime && now.state !== 'Z') {
      seen.add(p.pid);
      // As it is now: a snapshot taken while the pod was being built can catch its pause mid-exec, with
      // no command line yet.
      const cmdline = now.cmdline || p.cmdline;
      const what = `pid ${p.pid} (${cmdline.slice(0, 80)}) is still alive${frozenNote(p.pid, view)}`;
      leaks.push({ kind: 'process', what, object: `pid ${p.pid}` });
    }
  }
  for (const p of livingProcessesOf(s.ids)) {
    if (!seen.has(p.pid))
      leaks.push({
        kind: 'process',
        what: `pid ${p.pid} (${p.cmdline.slice(0, 80)}) still references the pod`,
        object: `pid ${p.pid}`,
      });
  }
  const mountinfo = view.mountinfo();
  const mounts = parseCgroupMounts(mountinfo);
  for (const dir of s.cgroupDirs)
    if (exists(view.path(dir))) leaks.push({ kind: 'cgroup', what: dir, object: cgroupName(dir, mounts) });
  if (s.netnsPath && exists(view.path(s.netnsPath))) {
    leaks.push({ kind: 'netns', what: `${s.netnsPath} still exists`, object: s.netnsPath });
  }
  for (const m of mountsMentioning(mountinfo, s.ids)) {
    leaks.push({ kind: 'mount', what: `${m} is still mounted`, object: m });
  }
  return leaks;
}

function netnsOf(pids: readonly number[], view: NodeView): string | undefined {
  const hostNet = inodeOf('/proc/1/ns/net');
  const byInode = new Map([...listNetns(view)].map(([path, inode]) => [inode, path]));
  for (const pid of pids) {
    const inode = inodeOf(`/proc/${pid}/ns/net`);
    const path = inode === undefined || inode === hostNet ? undefined : byInode.get(inode);
    if (path) return path;
  }
  return undefined;
}
