/**
 * Which runtime process serves the CRI socket, from the host's own tables: the listening unix socket bound
 * to the endpoint's path (/proc/net/unix gives its inode) and the processes that hold it open (a
 * `socket:[<inode>]` link in /proc/<pid>/fd). A restarted runtime binds a new socket, so the inode changes
 * even where the process cannot be seen (another user's process without root); where a service manager
 * holds the socket across restarts (socket activation), the holders change instead.
 */
import { readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { parseEndpoint } from '../cri/endpoint.js';

export interface RuntimeIdentity {
  /** Inodes of the listening sockets bound to the endpoint's path (normally one). */
  inodes: string[];
  /** Processes holding one of them open, as far as this user may look. */
  pids: number[];
}

/** __SO_ACCEPTCON in /proc/net/unix's Flags column: the socket listens. */
const ACCEPTING = 0x10000;

/**
 * The identity of whatever serves `endpoint`, or why it cannot be known here (not a unix socket, or no
 * listener bound to it on this host's network namespace).
 */
export async function runtimeIdentity(
  endpoint: string,
  opts: { proc?: string; holders?: boolean } = {},
): Promise<RuntimeIdentity | { unknown: string }> {
  const proc = opts.proc ?? '/proc';
  const path = parseEndpoint(endpoint).socketPath;
  if (path === undefined) return { unknown: `${endpoint} is not a unix socket of this host` };
  const table = await readFile(join(proc, 'net/unix'), 'utf8').catch(() => undefined);
  if (table === undefined) return { unknown: `${proc}/net/unix cannot be read` };
  // The table has the path the runtime bound, which may be the real one behind a symlink (/var/run).
  const paths = new Set([path, await realpath(path).catch(() => path)]);
  const inodes = listeners(table, paths);
  if (inodes.length === 0) return { unknown: `no process listens on ${path} in ${proc}/net/unix` };
  // Finding the holders reads every process's fds (about 0.1 s on a busy node), so a frequent look skips it.
  if (opts.holders === false) return { inodes, pids: [] };
  return { inodes, pids: await holders(proc, new Set(inodes.map((i) => `socket:[${i}]`))) };
}

/** Whether `after` is served by another socket or other processes than `before`. */
export function changed(before: RuntimeIdentity, after: RuntimeIdentity): boolean {
  const same = (a: readonly (string | number)[], b: readonly (string | number)[]) =>
    a.length === b.length && a.every((x) => b.includes(x));
  return !same(before.inodes, after.inodes) || !same(before.pids, after.pids);
}

/** "pid 812, socket inode 40219": for messages. */
export function describeIdentity(id: RuntimeIdentity): string {
  const pids = id.pids.length > 0 ? `pid ${id.pids.join(', ')}, ` : '';
  return `${pids}socket inode ${id.inodes.join(', ')}`;
}

function listeners(table: string, paths: ReadonlySet<string>): string[] {
  // Num RefCount Protocol Flags Type St Inode Path
  return table
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => paths.has(f[7] ?? '') && (Number.parseInt(f[3] ?? '0', 16) & ACCEPTING) !== 0)
    .map((f) => f[6] ?? '');
}

async function holders(proc: string, links: ReadonlySet<string>): Promise<number[]> {
  const pids = (await readdir(proc).catch(() => [] as string[])).filter((d) => /^\d+$/.test(d));
  const found = await Promise.all(
    pids.map(async (pid) => {
      const fdDir = join(proc, pid, 'fd');
      const fds = await readdir(fdDir).catch(() => [] as string[]);
      for (const fd of fds) {
        if (links.has(await readlink(join(fdDir, fd)).catch(() => ''))) return Number(pid);
      }
      return undefined;
    }),
  );
  return found.filter((p): p is number => p !== undefined).sort((a, b) => a - b);
}
