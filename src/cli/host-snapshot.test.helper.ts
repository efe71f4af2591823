/**
 * A snapshot of the host, for the kill tests: processes, mounts, links, network namespaces, cgroups, and
 * the entries of /run/cri-conform and /var/lib/cni. Other engineers' runtimes, instances and tests share
 * this host and change all of these at any moment, so a snapshot is compared only in what one run could
 * have made: the entries that name one of its marks (its instance's directory and id, its run id, the
 * ids of the pods and containers seen on its runtime, the netns paths of those pods, its bridge while the
 * bridge's claim is its own). That is sound both ways: no one else's object carries those names (they are
 * unique to the run, and a bridge name another instance took over after ours is told apart by its claim),
 * and whatever the run made carries one of them (a shim or wrapper names the directory or an id, a mount
 * the directory or an id, a cgroup an id, a netns its path, a CNI cache file the network name or an id).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isDir, readdirSafe } from '../instance/dir-entries.js';
import { NETWORK_CLAIMS } from '../instance/network.js';
import type { SeenObjects } from './instance-traces.test.helper.js';

export interface HostSnapshot {
  processes: string[];
  mounts: string[];
  links: string[];
  netns: string[];
  cgroups: string[];
  runDir: string[];
  cniDir: string[];
}

/** What one run could have made: the names its objects carry. */
export interface RunMarks {
  /** Paths and ids: the instance's directory and id, the run id, pod and container ids, netns paths. */
  tokens: Set<string>;
  /** The instance's bridge, and the claim that makes it the instance's. */
  bridge?: { name: string; claim: string; dir: string };
}

/** The marks of a private instance in `dir` with this network, and of what was seen of it. */
export function instanceMarks(
  dir: string,
  network: { number: number; bridge: string },
  seen: SeenObjects,
): RunMarks {
  return {
    tokens: new Set([dir, basename(dir), ...seen.ids, ...seen.netns, ...seen.runIds]),
    bridge: { name: network.bridge, claim: join(NETWORK_CLAIMS, String(network.number)), dir },
  };
}

export function hostSnapshot(): HostSnapshot {
  return {
    processes: processLines(),
    mounts: readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((l) => l.split(' ')[4] ?? '')
      .filter(Boolean),
    links: execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' })
      .split('\n')
      .map((l) => l.split(':')[1]?.trim().split('@')[0] ?? '')
      .filter(Boolean),
    netns: ['/run/netns', '/var/run/netns'].flatMap((d) => readdirSafe(d).map((n) => join(d, n))),
    cgroups: walk('/sys/fs/cgroup', 6, true),
    runDir: walk('/run/cri-conform', 3),
    cniDir: walk('/var/lib/cni', 2),
  };
}

/** The snapshot in what the run with these marks could have made (see the module comment). */
export function ownedBy(snapshot: HostSnapshot, marks: RunMarks): HostSnapshot {
  const tokens = [...marks.tokens].filter((t) => t.length >= 8);
  const named = (entry: string) => tokens.some((t) => entry.includes(t));
  const bridge = marks.bridge;
  const ourBridge = (link: string) => bridge !== undefined && link === bridge.name && claimedBy(bridge);
  return {
    processes: snapshot.processes.filter(named),
    mounts: snapshot.mounts.filter(named),
    links: snapshot.links.filter(ourBridge),
    netns: snapshot.netns.filter(named),
    cgroups: snapshot.cgroups.filter(named),
    runDir: snapshot.runDir.filter(named),
    cniDir: snapshot.cniDir.filter(named),
  };
}

/** What `after` holds of the run's that `before` did not, one "kind entry" line each (empty: equal). */
export function madeSince(before: HostSnapshot, after: HostSnapshot, marks: RunMarks): string[] {
  const [was, is] = [ownedBy(before, marks), ownedBy(after, marks)];
  return (Object.keys(is) as (keyof HostSnapshot)[]).flatMap((kind) => [
    ...is[kind].filter((e) => !was[kind].includes(e)).map((e) => `${kind} ${e}`),
    ...was[kind].filter((e) => !is[kind].includes(e)).map((e) => `${kind} gone: ${e}`),
  ]);
}

/** The claim still names the instance's directory, or names none (ours was released, no one took it). */
function claimedBy(bridge: NonNullable<RunMarks['bridge']>): boolean {
  try {
    return readlinkSync(bridge.claim) === bridge.dir;
  } catch {
    return true;
  }
}

function processLines(): string[] {
  return readdirSafe('/proc')
    .filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)
    .flatMap((pid) => {
      try {
        const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
        return state === 'Z' || args === '' ? [] : [`${pid} ${args}`];
      } catch {
        return [];
      }
    });
}

/** Entries below `root`, `depth` levels down; directories only when asked (a cgroup's files are its knobs). */
function walk(root: string, depth: number, dirsOnly = false): string[] {
  if (!existsSync(root)) return [];
  const found: string[] = [];
  const visit = (d: string, left: number) => {
    for (const name of readdirSafe(d)) {
      const path = join(d, name);
      const dir = isDir(path);
      if (dir || !dirsOnly) found.push(path);
      if (left > 0 && dir) visit(path, left - 1);
    }
  };
  visit(root, depth);
  return found;
}
