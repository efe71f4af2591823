/**
 * Which runtime process serves the CRI socket, from the host's own tables. The listening unix socket bound
 * to the endpoint's path (/proc/net/unix gives its inode) is cheap to read and changes when a runtime
 * restarts, since the new process binds a new socket. Where a service manager holds the socket across
 * restarts (socket activation), the processes holding it (a `socket:[<inode>]` link in /proc/<pid>/fd) and
 * their start times tell instead; finding them reads every process's fds, so it is done only then.
 */
import { readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { parseEndpoint } from '../../cri/endpoint.js';
import { parseStat } from '../host/proc.js';

/** The listening sockets bound to the endpoint's path (normally one), by inode. */
export interface ServingSocket {
  inodes: string[];
}

export interface SocketHolder {
  pid: number;
  /** When the process started, in seconds since boot (/proc/<pid>/stat). */
  startedSec: number;
}

/** __SO_ACCEPTCON in /proc/net/unix's Flags column: the socket listens. */
const ACCEPTING = 0x10000;
/** USER_HZ, the unit of /proc/<pid>/stat's start time: 100 on every Linux architecture cri-conform runs on. */
const TICKS_PER_SECOND = 100;

/**
 * The socket that serves `endpoint`, or why it cannot be known here (not a unix socket, or no listener
 * bound to it in this host's network namespace).
 */
export async function servingSocket(
  endpoint: string,
  proc = '/proc',
): Promise<ServingSocket | { unknown: string }> {
  const path = parseEndpoint(endpoint).socketPath;
  if (path === undefined) return { unknown: `${endpoint} is not a unix socket of this host` };
  const table = await readFile(join(proc, 'net/unix'), 'utf8').catch(() => undefined);
  if (table === undefined) return { unknown: `${proc}/net/unix cannot be read` };
  // The table has the path the runtime bound, which may be the real one behind a symlink (/var/run).
  const paths = new Set([path, await realpath(path).catch(() => path)]);
  const inodes = listeners(table, paths);
  if (inodes.length === 0) return { unknown: `no process listens on ${path} in ${proc}/net/unix` };
  return { inodes };
}

export function sameSocket(a: ServingSocket, b: ServingSocket): boolean {
  return a.inodes.length === b.inodes.length && a.inodes.every((i) => b.inodes.includes(i));
}

/** The processes holding the socket open, as far as this user may look, oldest first. */
export async function socketHolders(socket: ServingSocket, proc = '/proc'): Promise<SocketHolder[]> {
  const links = new Set(socket.inodes.map((i) => `socket:[${i}]`));
  const pids = (await readdir(proc).catch(() => [] as string[])).filter((d) => /^\d+$/.test(d));
  const found: SocketHolder[] = [];
  // One process at a time: thousands of links at once would queue every other file call of this process.
  for (const pid of pids) {
    const fdDir = join(proc, pid, 'fd');
    const fds = await readdir(fdDir).catch(() => [] as string[]);
    const targets = await Promise.all(fds.map((fd) => readlink(join(fdDir, fd)).catch(() => '')));
    if (!targets.some((t) => links.has(t))) continue;
    const startedSec = await startOf(proc, pid);
    if (startedSec !== undefined) found.push({ pid: Number(pid), startedSec });
  }
  return found.sort((a, b) => a.startedSec - b.startedSec);
}

/** Seconds since boot now: the clock of SocketHolder.startedSec. */
export async function secondsSinceBoot(proc = '/proc'): Promise<number | undefined> {
  const text = await readFile(join(proc, 'uptime'), 'utf8').catch(() => '');
  const seconds = Number.parseFloat(text.split(' ')[0] ?? '');
  return Number.isFinite(seconds) ? seconds : undefined;
}

/** "socket inode 40219": for messages. */
export function describeSocket(socket: ServingSocket): string {
  return `socket inode ${socket.inodes.join(', ')}`;
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

async function startOf(proc: string, pid: string): Promise<number | undefined> {
  const stat = parseStat(await readFile(join(proc, pid, 'stat'), 'utf8').catch(() => ''));
  const ticks = Number(stat?.startTime);
  return stat && Number.isFinite(ticks) ? ticks / TICKS_PER_SECOND : undefined;
}
