/**
 * Reading processes from /proc for the private instance: its daemon, its shims and wrappers, its owner,
 * its supervisor. A recorded pid is trusted only with the start time recorded beside it: after the process
 * exits, its pid may be given to another one.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** A process as a record names it: its pid, and its start time, which a reused pid does not share. */
export interface RecordedProcess {
  pid: number;
  startTime: string;
}

/** The process `pid` is now, to be recorded; undefined when it has already gone. */
export function recordProcess(pid: number): RecordedProcess | undefined {
  const startTime = startTimeOf(pid);
  return startTime === undefined ? undefined : { pid, startTime };
}

/** Whether the recorded process still runs: the same pid with the same start time, and not a zombie. */
export function stillRunning(p: RecordedProcess): boolean {
  return p.startTime !== '' && startTimeOf(p.pid) === p.startTime && alive(p.pid);
}

export function cmdlineOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

/** Running and not a zombie waiting for a slow reaper (PID 1 here reaps late). */
export function alive(pid: number): boolean {
  const stat = statFields(pid);
  return stat !== undefined && stat[0] !== 'Z';
}

/** Field 22 of /proc/PID/stat: tells a reused pid from the process that was recorded. */
export function startTimeOf(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** Live processes (other than this one) whose command line holds `text` in one of its arguments. */
export function pidsMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    if (cmdlineOf(pid)?.some((a) => a.includes(text)) && alive(pid)) pids.push(pid);
  }
  return pids;
}

/** Live processes whose command line `matches`, and their children (a wrapper's `sleep`). */
export function pidsWithArgs(matches: (argv: readonly string[]) => boolean): number[] {
  const found = new Set<number>();
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid || !alive(pid)) continue;
    parents.set(pid, Number(statFields(pid)?.[1] ?? 0));
    const argv = cmdlineOf(pid);
    if (argv && matches(argv)) found.add(pid);
  }
  for (const [pid, parent] of parents) if (found.has(parent)) found.add(pid);
  return [...found];
}

function statFields(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}
