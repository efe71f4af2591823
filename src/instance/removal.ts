/**
 * Removing a private instance and everything it made on the host, found through its directory only:
 * its pods (through CRI while it answers, so CNI tears their networks down), its daemon, shims, wrappers
 * and runc containers, the network namespaces and mounts it made, its bridge, CNI cache entries, shim
 * sockets and container cgroups, its network claim and last the directory. Then it looks again and
 * reports whatever is still there: a removal that leaves something says so.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CriClient } from '../cri/client.js';
import { layoutPaths } from './containerd-config.js';
import { runningDaemon, signalAndWait, stopDaemon } from './daemon.js';
import type { InstanceFile } from './instance-file.js';
import { releaseNetwork } from './network.js';
import { alive, pidsMentioning, pidsWithArgs } from './processes.js';

const exec = promisify(execFile);
const CGROUP_ROOT = '/sys/fs/cgroup';
const STATE_FILE = /^(?:address|meta\.db|.*\.json)$/;

export async function removeInstance(dir: string, info: InstanceFile): Promise<string[]> {
  const p = layoutPaths(dir);
  if (runningDaemon(dir) !== undefined) await removePodsThroughCri(`unix://${p.socket}`);
  const named = namedInState(dir);
  await stopDaemon(dir);
  for (const pid of instanceProcesses(dir)) await signalAndWait(pid, 'SIGKILL', 5_000);
  await deleteRuncContainers(p.runcRoot, info.runcBinary);
  for (const ns of named.netns) await deleteNetns(ns);
  await unmountUnder(dir);
  await quiet('ip', ['link', 'delete', 'dev', info.network.bridge]);
  removeCniCache(info.network.name, named.ids);
  for (const s of named.shimSockets) rmSync(s, { force: true });
  removeCgroups(named.ids);
  releaseNetwork(dir, info.network.number);
  const problems = await remains(dir, info, named);
  if (!problems.some((x) => x.startsWith('mount'))) rmSync(dir, { recursive: true, force: true });
  return problems;
}

/** What of the instance is still on the host; empty when nothing is. */
export async function remains(
  dir: string,
  info: InstanceFile,
  named: { netns: string[]; ids: string[] } = { netns: [], ids: [] },
): Promise<string[]> {
  const problems: string[] = [];
  const pids = pidsMentioning(`${dir}/`).filter(alive);
  if (pids.length > 0) problems.push(`processes still running: ${pids.join(' ')}`);
  const mounts = mountsUnder(dir);
  if (mounts.length > 0) problems.push(`mounts still under ${dir}: ${mounts.slice(0, 3).join(' ')}`);
  const netns = named.netns.filter((ns) => existsSync(ns));
  if (netns.length > 0) problems.push(`network namespaces still there: ${netns.join(' ')}`);
  if ((await quiet('ip', ['link', 'show', 'dev', info.network.bridge])) === 0)
    problems.push(`bridge ${info.network.bridge} still there`);
  const cgroups = named.ids.length > 0 ? cgroupDirs(named.ids) : [];
  if (cgroups.length > 0) problems.push(`cgroups still there: ${cgroups.slice(0, 3).join(' ')}`);
  return problems;
}

/**
 * The instance's shims (`-address <its socket>`) and the wrappers in the middle of a delay (their script
 * is one of its files), with their children; nothing else, even if it names the directory.
 */
export function instanceProcesses(dir: string): number[] {
  const p = layoutPaths(dir);
  const wrappers = new Set([join(p.slowRuntime, 'runc-slow'), join(p.cniBin, 'conform-bridge')]);
  return pidsWithArgs(
    (argv) =>
      argv.some((a, i) => a === '-address' && argv[i + 1] === p.socket) || argv.some((a) => wrappers.has(a)),
  );
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
function namedInState(dir: string): { netns: string[]; ids: string[]; shimSockets: string[] } {
  const p = layoutPaths(dir);
  const text = filesUnder([p.state, join(p.root, 'io.containerd.metadata.v1.bolt')], 6)
    .map((f) => {
      try {
        return readFileSync(f, 'latin1');
      } catch {
        return '';
      }
    })
    .join('\n');
  const ids = new Set<string>();
  for (const d of [
    ...subdirs(p.runcRoot).flatMap(subdirs),
    ...subdirs(join(p.state, 'io.containerd.runtime.v2.task')).flatMap(subdirs),
  ]) {
    const id = d.split('/').at(-1) ?? '';
    if (/^[0-9a-f]{64}$/.test(id)) ids.add(id);
  }
  return {
    netns: unique(text.match(/\/(?:var\/)?run\/netns\/cni-[0-9a-f-]{36}/g)),
    ids: [...ids],
    shimSockets: unique(text.match(/\/run\/containerd\/s\/[0-9a-f]{64}/g)),
  };
}

async function deleteRuncContainers(runcRoot: string, runc: string): Promise<void> {
  for (const root of subdirs(runcRoot)) {
    for (const id of readdirSafe(root)) {
      await quiet(runc, ['--root', root, 'delete', '--force', id]);
    }
  }
}

async function deleteNetns(path: string): Promise<void> {
  if (!existsSync(path)) return;
  if ((await quiet('ip', ['netns', 'delete', path.split('/').at(-1) ?? ''])) === 0) return;
  await quiet('umount', ['-l', path]);
  rmSync(path, { force: true });
}

async function unmountUnder(dir: string): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const mounts = mountsUnder(dir).sort((a, b) => b.length - a.length);
    if (mounts.length === 0) return;
    for (const m of mounts) await quiet('umount', ['-l', m]);
  }
}

function mountsUnder(dir: string): string[] {
  const text = readFileSync('/proc/self/mountinfo', 'utf8');
  return text
    .split('\n')
    .map((l) => (l.split(' ')[4] ?? '').replace(/\\040/g, ' '))
    .filter((m) => m.startsWith(`${dir}/`) || m === dir);
}

function removeCniCache(network: string, ids: readonly string[]): void {
  const cache = '/var/lib/cni/results';
  for (const f of readdirSafe(cache)) {
    if (f.startsWith(`${network}-`) || ids.some((id) => f.startsWith(`cni-loopback-${id}-`)))
      rmSync(join(cache, f), { force: true });
  }
}

function removeCgroups(ids: readonly string[]): void {
  if (ids.length === 0) return;
  for (const d of cgroupDirs(ids).sort((a, b) => b.length - a.length)) {
    try {
      rmSync(d, { recursive: false });
    } catch {
      // rmdir of a cgroup with processes fails; `remains` reports it
    }
  }
}

/** Cgroup directories named after one of the ids, up to six levels below each hierarchy. */
function cgroupDirs(ids: readonly string[]): string[] {
  const wanted = new Set(ids);
  const found: string[] = [];
  const walk = (d: string, depth: number) => {
    for (const name of readdirSafe(d)) {
      const path = join(d, name);
      if (!isDir(path)) continue;
      if (wanted.has(name)) found.push(path);
      else if (depth < 6) walk(path, depth + 1);
    }
  };
  walk(CGROUP_ROOT, 0);
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

/** Runs a command, ignoring its output; resolves with its exit code. */
async function quiet(cmd: string, args: string[]): Promise<number> {
  try {
    await exec(cmd, args, { timeout: 10_000 });
    return 0;
  } catch (e) {
    return typeof (e as { code?: unknown }).code === 'number' ? (e as { code: number }).code : 1;
  }
}
