/**
 * Removing a private instance and everything it made on the host, found through its directory only:
 * its pods (through CRI while it answers, so CNI tears their networks down), its daemon, shims, wrappers
 * and runc containers, the network namespaces and mounts it made, its bridge, CNI cache entries, shim
 * sockets and container cgroups, its network claim and last the directory. Then it looks again: only
 * when nothing of the instance is left does its record (instance.json, the index entry) go; what is left
 * is returned, and written into the record for the next cleanup.
 *
 * The whole removal is bounded (REMOVAL_WITHIN_MS), so that a wedged daemon cannot hold its own removal,
 * or the pod that runs it, past a known time: the Sonobuoy plugin's grace period is computed from it.
 * One remover at a time: the run, its supervisor and `cleanup --isolated` may all try.
 */
import { execFile } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { CriClient } from '../cri/client.js';
import { cgroupDirs, processesInCgroups, removeCgroups } from './cgroups.js';
import { removeInstanceCniFiles } from './cni-files.js';
import { crioPaths } from './crio-config.js';
import {
  DAEMON_KILL_WAIT_MS,
  DAEMON_STOP_GRACE_MS,
  runningDaemon,
  signalAndWait,
  stopDaemon,
} from './daemon.js';
import { isDir, readdirSafe } from './dir-entries.js';
import type { HostView } from './host-view.js';
import {
  flavorOf,
  hostViewOf,
  type InstanceFile,
  unindexInstance,
  writeInstanceFile,
} from './instance-file.js';
import { type Flavor, layoutPaths } from './layout.js';
import { releaseNetwork } from './network.js';
import { alive, pidsMentioning, pidsWithArgs } from './processes.js';
import { readTextOrEmpty } from './read-text.js';
import { releaseRemoval, takeRemoval } from './removal-lock.js';

const exec = promisify(execFile);
const STATE_FILE = /^(?:address|meta\.db|.*\.json)$/;
/** The instance's pods through its own CRI: every call of the phase shares this much. */
export const CRI_PHASE_MS = 20_000;
/** Each node command (runc delete, umount, ip), at most; less when the removal's time is nearly up. */
const COMMAND_MS = 10_000;
/** How often a removal that found another one at work looks whether that one is done. */
const HOLDER_POLL_MS = 100;
/** Its shims and wrappers, SIGKILLed together: how long their exit is waited for. */
const PROCESSES_KILL_WAIT_MS = 5_000;
/**
 * The bound of a whole removal: the CRI phase, the daemon's stop (SIGTERM and its grace, then SIGKILL),
 * the kill of its other processes, and 15 s for the node commands after them.
 */
export const REMOVAL_WITHIN_MS =
  CRI_PHASE_MS + DAEMON_STOP_GRACE_MS + DAEMON_KILL_WAIT_MS + PROCESSES_KILL_WAIT_MS + 15_000;

export async function removeInstance(
  dir: string,
  info: InstanceFile,
  withinMs = REMOVAL_WITHIN_MS,
): Promise<string[]> {
  // Another remover at work (the supervisor of a run just killed, say): wait for it, then look again.
  const waitUntil = Date.now() + withinMs;
  let holder = takeRemoval(dir);
  while (holder !== undefined && Date.now() < waitUntil) {
    await sleep(HOLDER_POLL_MS);
    if (!existsSync(dir)) return [];
    holder = takeRemoval(dir);
  }
  if (holder !== undefined) return [`${dir} is still being removed by process ${holder}`];
  try {
    return await removeOnce(dir, info, new Budget(withinMs));
  } finally {
    releaseRemoval(dir);
  }
}

async function removeOnce(dir: string, info: InstanceFile, budget: Budget): Promise<string[]> {
  const flavor = flavorOf(info);
  const p = layoutPaths(dir, flavor);
  const host = hostViewOf(info);
  const quiet = (cmd: string, args: string[]) => quietCommand(host.command(cmd, args), budget);
  if (runningDaemon(dir, flavor) !== undefined)
    await removePodsThroughCri(`unix://${p.socket}`, budget.left(CRI_PHASE_MS));
  const named = namedInState(dir, flavor);
  await stopDaemon(dir, flavor, budget.left(DAEMON_STOP_GRACE_MS), budget.left(DAEMON_KILL_WAIT_MS));
  const processes = instanceProcesses(dir, flavor);
  await Promise.all(
    processes.map((pid) => signalAndWait(pid, 'SIGKILL', budget.left(PROCESSES_KILL_WAIT_MS))),
  );
  for (const root of subdirs(p.runcRoot)) {
    for (const id of readdirSafe(root))
      await quiet(info.runcBinary, ['--root', root, 'delete', '--force', id]);
  }
  for (const ns of named.netns) await deleteNetns(ns, host, quiet);
  await unmountUnder(dir, host, quiet);
  if (info.network.bridge !== '') await quiet('ip', ['link', 'delete', 'dev', info.network.bridge]);
  removeInstanceCniFiles(info.network.name, named.ids, host);
  for (const s of named.shimSockets) rmSync(host.path(s), { force: true });
  // The daemon is gone, so no container cgroup comes or goes meanwhile: one walk of the trees serves both.
  const cgroups = cgroupDirs(named.ids, host);
  await Promise.all(
    processesInCgroups(cgroups).map((pid) =>
      signalAndWait(pid, 'SIGKILL', budget.left(PROCESSES_KILL_WAIT_MS)),
    ),
  );
  removeCgroups(cgroups);
  const problems = await remains(dir, info, named);
  if (budget.ranOut) problems.push(`its removal ran out of its ${budget.withinMs} ms`);
  if (problems.length === 0) {
    releaseNetwork(dir, info.network);
    await removeDir(dir, host, quiet);
    if (!existsSync(dir)) {
      unindexInstance(info.id, dir);
      return [];
    }
    problems.push(`its directory ${dir} could not be removed`);
  }
  // The record stays, with what is left, for the next `cleanup --isolated` (or the next run's sweep).
  writeInstanceFile(dir, { ...info, leftovers: { at: new Date().toISOString(), what: problems } });
  return problems;
}

/** What is left of a removal's time, as a deadline for one step: never more than `capMs`. */
class Budget {
  private readonly endAt: number;
  ranOut = false;

  constructor(readonly withinMs: number) {
    this.endAt = Date.now() + withinMs;
  }

  left(capMs: number): number {
    const left = this.endAt - Date.now();
    if (left <= 0) this.ranOut = true;
    return Math.max(0, Math.min(capMs, left));
  }
}

/**
 * From a pod, on the node: a pod started after the instance mounted something holds a copy of those mounts
 * (its mount of the node's directory is recursive), and a directory that is a mountpoint in the remover's
 * own namespace cannot be removed; in another namespace the kernel detaches the copy instead.
 */
async function removeDir(dir: string, host: HostView, quiet: Quiet): Promise<void> {
  if (!host.inPod) {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  await quiet('rm', ['-rf', '--one-file-system', dir]);
}

/** What of the instance is still on the host; empty when nothing is. */
export async function remains(
  dir: string,
  info: InstanceFile,
  named: { netns: string[]; ids: string[] } = { netns: [], ids: [] },
): Promise<string[]> {
  const host = hostViewOf(info);
  const problems: string[] = [];
  const pids = pidsMentioning(`${dir}/`).filter(alive);
  if (pids.length > 0) problems.push(`processes still running: ${pids.join(' ')}`);
  const mounts = mountsUnder(dir, host);
  if (mounts.length > 0) problems.push(`mounts still under ${dir}: ${mounts.slice(0, 3).join(' ')}`);
  const netns = named.netns.filter((ns) => existsSync(host.path(ns)));
  if (netns.length > 0) problems.push(`network namespaces still there: ${netns.join(' ')}`);
  const bridge = info.network.bridge;
  if (bridge !== '' && (await quietCommand(host.command('ip', ['link', 'show', 'dev', bridge]))) === 0)
    problems.push(`bridge ${bridge} still there`);
  const cgroups = cgroupDirs(named.ids, host);
  if (cgroups.length > 0) problems.push(`cgroups still there: ${cgroups.slice(0, 3).join(' ')}`);
  return problems;
}

/**
 * The instance's shims (containerd's `-address <its socket>`; CRI-O's conmon, whose exit dir is the
 * copy's) and the wrappers in the middle of a delay (their script is one of its files), with their
 * children; nothing else, even if it names the directory.
 */
export function instanceProcesses(dir: string, flavor: Flavor = 'containerd'): number[] {
  const p = layoutPaths(dir, flavor);
  const { exits } = crioPaths(dir);
  const wrappers = new Set([join(p.slowRuntime, 'runc-slow'), join(p.cniBin, 'conform-bridge')]);
  const isShim = (argv: readonly string[]) =>
    flavor === 'crio'
      ? argv.some((a, i) => (a === '--exit-dir' && argv[i + 1] === exits) || a === `--exit-dir=${exits}`)
      : argv.some((a, i) => a === '-address' && argv[i + 1] === p.socket);
  return pidsWithArgs((argv) => isShim(argv) || argv.some((a) => wrappers.has(a)));
}

/** Every pod of a private instance is cri-conform's: no kubelet talks to it. All within `withinMs`. */
async function removePodsThroughCri(endpoint: string, withinMs: number): Promise<void> {
  const endAt = Date.now() + withinMs;
  const deadline = () => ({ deadlineMs: Math.max(1, endAt - Date.now()) });
  let client: CriClient | undefined;
  try {
    client = await CriClient.connect({
      runtimeEndpoint: endpoint,
      connectTimeoutMs: Math.min(3_000, withinMs),
    });
    const { items } = await client.call('ListPodSandbox', { filter: null }, deadline());
    for (const pod of items) {
      if (Date.now() >= endAt) return;
      await client.call('StopPodSandbox', { podSandboxId: pod.id }, deadline()).catch(() => undefined);
      await client.call('RemovePodSandbox', { podSandboxId: pod.id }, deadline()).catch(() => undefined);
    }
  } catch {
    // A daemon that does not answer: everything is removed by force below.
  } finally {
    client?.close();
  }
}

/** Network namespaces, container ids and shim sockets the instance's state names. */
function namedInState(
  dir: string,
  flavor: Flavor,
): { netns: string[]; ids: string[]; shimSockets: string[] } {
  const p = layoutPaths(dir, flavor);
  const text = filesUnder([p.state, join(p.root, 'io.containerd.metadata.v1.bolt')], 6)
    .map((f) => readTextOrEmpty(f, 'latin1'))
    .join('\n');
  const ids = new Set<string>();
  for (const d of [
    ...subdirs(p.runcRoot).flatMap(subdirs),
    ...subdirs(join(p.state, 'io.containerd.runtime.v2.task')).flatMap(subdirs),
  ]) {
    const id = d.split('/').at(-1) ?? '';
    if (/^[0-9a-f]{64}$/.test(id)) ids.add(id);
  }
  // Containers already removed may have left a cgroup (CRI-O's conmon cgroup of a failed create); the
  // daemon's own log names every id it made. An id there that is no container's matches no cgroup.
  for (const id of readTextOrEmpty(p.log).match(/\b[0-9a-f]{64}\b/g) ?? []) ids.add(id);
  return {
    netns: unique(text.match(/\/(?:var\/)?run\/netns\/cni-[0-9a-f-]{36}/g)),
    ids: [...ids],
    shimSockets: unique(text.match(/\/run\/containerd\/s\/[0-9a-f]{64}/g)),
  };
}

async function deleteNetns(path: string, host: HostView, quiet: Quiet): Promise<void> {
  if (!existsSync(host.path(path))) return;
  if ((await quiet('ip', ['netns', 'delete', path.split('/').at(-1) ?? ''])) === 0) return;
  await quiet('umount', ['-l', path]);
  rmSync(host.path(path), { force: true });
}

/** The daemon mounted in the node's mount namespace: unmounted there. */
async function unmountUnder(dir: string, host: HostView, quiet: Quiet): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const mounts = mountsUnder(dir, host).sort((a, b) => b.length - a.length);
    if (mounts.length === 0) return;
    for (const m of mounts) await quiet('umount', ['-l', m]);
  }
}

function mountsUnder(dir: string, host: HostView): string[] {
  const text = host.mountinfo();
  return text
    .split('\n')
    .map((l) => (l.split(' ')[4] ?? '').replace(/\\040/g, ' '))
    .filter((m) => m.startsWith(`${dir}/`) || m === dir);
}

/** The state files that name namespaces and sockets (as scripts/containerd-down.sh reads them). */
function filesUnder(roots: readonly string[], depth: number): string[] {
  return roots.flatMap((r) => {
    const name = r.split('/').at(-1) ?? '';
    if (!existsSync(r) || name === 'rootfs') return [];
    if (!isDir(r)) return STATE_FILE.test(name) && statSync(r).size < 64 << 20 ? [r] : [];
    return depth === 0
      ? []
      : filesUnder(
          readdirSafe(r).map((n) => join(r, n)),
          depth - 1,
        );
  });
}

function subdirs(dir: string): string[] {
  return readdirSafe(dir)
    .map((n) => join(dir, n))
    .filter(isDir);
}

function unique(matches: RegExpMatchArray | null): string[] {
  return [...new Set(matches ?? [])];
}

/** Runs a node command, ignoring its output; resolves with its exit code. */
type Quiet = (cmd: string, args: string[]) => Promise<number>;

/** Within the budget's time: a command left no time at all is not run, and counts as failed. */
async function quietCommand(cmd: { file: string; args: string[] }, budget?: Budget): Promise<number> {
  const timeout = budget ? budget.left(COMMAND_MS) : COMMAND_MS;
  if (timeout === 0) return 1;
  try {
    await exec(cmd.file, cmd.args, { timeout });
    return 0;
  } catch (e) {
    return typeof (e as { code?: unknown }).code === 'number' ? (e as { code: number }).code : 1;
  }
}
