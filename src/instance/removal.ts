/**
 * Removing a private instance and everything it made on the host, found through its directory only:
 * its pods (through CRI while it answers, so CNI tears their networks down), its daemon, shims, wrappers
 * and runc containers, the network namespaces and mounts it made, its bridge, CNI cache entries, shim
 * sockets and container cgroups, its network claim and last the directory. Then it looks again and
 * reports whatever is still there: a removal that leaves something says so.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CriClient } from '../cri/client.js';
import { crioPaths } from './crio-config.js';
import { runningDaemon, signalAndWait, stopDaemon } from './daemon.js';
import type { HostView } from './host-view.js';
import { flavorOf, hostViewOf, type InstanceFile } from './instance-file.js';
import { type Flavor, layoutPaths } from './layout.js';
import { releaseNetwork } from './network.js';
import { alive, pidsMentioning, pidsWithArgs } from './processes.js';
import { readTextOrEmpty } from './read-text.js';

const exec = promisify(execFile);
const CGROUP_ROOT = '/sys/fs/cgroup';
const STATE_FILE = /^(?:address|meta\.db|.*\.json)$/;

export async function removeInstance(dir: string, info: InstanceFile): Promise<string[]> {
  const flavor = flavorOf(info);
  const p = layoutPaths(dir, flavor);
  const host = hostViewOf(info);
  const quiet = quietOn(host);
  if (runningDaemon(dir, flavor) !== undefined) await removePodsThroughCri(`unix://${p.socket}`);
  const named = namedInState(dir, flavor);
  await stopDaemon(dir, flavor);
  for (const pid of instanceProcesses(dir, flavor)) await signalAndWait(pid, 'SIGKILL', 5_000);
  for (const root of subdirs(p.runcRoot)) {
    for (const id of readdirSafe(root))
      await quiet(info.runcBinary, ['--root', root, 'delete', '--force', id]);
  }
  for (const ns of named.netns) await deleteNetns(ns, host);
  await unmountUnder(dir, host);
  await quiet('ip', ['link', 'delete', 'dev', info.network.bridge]);
  removeCniCache(info.network.name, named.ids, host);
  for (const s of named.shimSockets) rmSync(host.path(s), { force: true });
  removeCgroups(named.ids, host);
  releaseNetwork(dir, info.network);
  const problems = await remains(dir, info, named);
  if (!problems.some((x) => x.startsWith('mount'))) await removeDir(dir, host);
  return problems;
}

/**
 * From a pod, on the node: a pod started after the instance mounted something holds a copy of those mounts
 * (its mount of the node's directory is recursive), and a directory that is a mountpoint in the remover's
 * own namespace cannot be removed; in another namespace the kernel detaches the copy instead.
 */
async function removeDir(dir: string, host: HostView): Promise<void> {
  if (!host.inPod) {
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  await quietOn(host)('rm', ['-rf', '--one-file-system', dir]);
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
  if ((await quietOn(host)('ip', ['link', 'show', 'dev', info.network.bridge])) === 0)
    problems.push(`bridge ${info.network.bridge} still there`);
  const cgroups = named.ids.length > 0 ? cgroupDirs(named.ids, host) : [];
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

async function removePodsThroughCri(endpoint: string): Promise<void> {
  let client: CriClient | undefined;
  try {
    client = await CriClient.connect({
      runtimeEndpoint: endpoint,
      connectTimeoutMs: 3_000,
      defaultDeadlineMs: 20_000,
    });
    // Every pod of a private instance is cri-conform's: no kubelet talks to it.
    const { items } = await client.call('ListPodSandbox', { filter: null });
    for (const pod of items) {
      await client.call('StopPodSandbox', { podSandboxId: pod.id }).catch(() => undefined);
      await client.call('RemovePodSandbox', { podSandboxId: pod.id }).catch(() => undefined);
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

async function deleteNetns(path: string, host: HostView): Promise<void> {
  if (!existsSync(host.path(path))) return;
  const quiet = quietOn(host);
  if ((await quiet('ip', ['netns', 'delete', path.split('/').at(-1) ?? ''])) === 0) return;
  await quiet('umount', ['-l', path]);
  rmSync(host.path(path), { force: true });
}

/** The daemon mounted in the node's mount namespace: unmounted there. */
async function unmountUnder(dir: string, host: HostView): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const mounts = mountsUnder(dir, host).sort((a, b) => b.length - a.length);
    if (mounts.length === 0) return;
    for (const m of mounts) await quietOn(host)('umount', ['-l', m]);
  }
}

function mountsUnder(dir: string, host: HostView): string[] {
  const text = host.mountinfo();
  return text
    .split('\n')
    .map((l) => (l.split(' ')[4] ?? '').replace(/\\040/g, ' '))
    .filter((m) => m.startsWith(`${dir}/`) || m === dir);
}

function removeCniCache(network: string, ids: readonly string[], host: HostView): void {
  const cache = host.path('/var/lib/cni/results');
  for (const f of readdirSafe(cache)) {
    if (f.startsWith(`${network}-`) || ids.some((id) => f.startsWith(`cni-loopback-${id}-`)))
      rmSync(join(cache, f), { force: true });
  }
}

function removeCgroups(ids: readonly string[], host: HostView): void {
  if (ids.length === 0) return;
  for (const d of cgroupDirs(ids, host).sort((a, b) => b.length - a.length)) {
    try {
      // rmSync refuses a directory unless recursive, and recursive would unlink a cgroup's control files.
      rmdirSync(d);
    } catch {
      // rmdir of a cgroup with processes fails; `remains` reports it
    }
  }
}

/**
 * The container id a cgroup's name carries: containerd's cgroupfs names it by the id alone, CRI-O by
 * `crio-<id>` and `crio-conmon-<id>`, the systemd drivers by `<prefix>-<id>.scope`.
 */
export function idOfCgroup(name: string): string | undefined {
  return /^(?:[a-z-]+-)?([0-9a-f]{64})(?:\.scope)?$/.exec(name)?.[1];
}

/** Cgroup directories named after one of the ids, up to six levels below each hierarchy. */
function cgroupDirs(ids: readonly string[], host: HostView): string[] {
  const wanted = new Set(ids);
  const found: string[] = [];
  const walk = (d: string, depth: number) => {
    for (const name of readdirSafe(d)) {
      const path = join(d, name);
      if (!isDir(path)) continue;
      if (wanted.has(idOfCgroup(name) ?? '')) {
        found.push(path);
        // CRI-O (conmon_cgroup = "pod", cgroupfs) nests crio-<id> inside crio-conmon-<id>.
        walk(path, 6);
      } else if (depth < 6) walk(path, depth + 1);
    }
  };
  walk(host.path(CGROUP_ROOT), 0);
  return found;
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

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function unique(matches: RegExpMatchArray | null): string[] {
  return [...new Set(matches ?? [])];
}

/** Runs a node command, ignoring its output; resolves with its exit code. */
function quietOn(host: HostView): (cmd: string, args: string[]) => Promise<number> {
  return (cmd, args) => quiet(host.command(cmd, args));
}

async function quiet(cmd: { file: string; args: string[] }): Promise<number> {
  try {
    await exec(cmd.file, cmd.args, { timeout: 10_000 });
    return 0;
  } catch (e) {
    return typeof (e as { code?: unknown }).code === 'number' ? (e as { code: number }).code : 1;
  }
}
