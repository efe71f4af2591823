/**
 * Starting and stopping the private daemon. It runs in a session of its own (a Ctrl-C to cri-conform
 * reaches cri-conform, which then removes the instance in order), with the node daemon's PATH behind the
 * binary's own directory, so that it finds the node's shims and runc; from a pod it runs in the node's
 * mount namespace (host-view.ts). Its pid is recorded in the
 * instance's directory with its start time, and is only ever signalled while both still hold and its
 * command line proves it is this instance's.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CriClient } from '../cri/client.js';
import type { HostView } from './host-view.js';
import { daemonArgs, type Flavor, layoutPaths } from './layout.js';
import { alive, cmdlineOf, type RecordedProcess, recordProcess, stillRunning } from './processes.js';

const POLL_MS = 50;
/** How long the daemon is given to stop on SIGTERM (its pods are gone by then), and then to die on SIGKILL. */
export const DAEMON_STOP_GRACE_MS = 15_000;
export const DAEMON_KILL_WAIT_MS = 5_000;

export interface DaemonCommand {
  binary: string;
  /** PATH for the daemon: the binary's own directory first. */
  path: string;
  flavor: Flavor;
}

export function startDaemon(dir: string, cmd: DaemonCommand, host: HostView): number {
  const p = layoutPaths(dir, cmd.flavor);
  const log = openSync(p.log, 'a');
  try {
    // nsenter without --fork execs the daemon: the pid recorded is the daemon's.
    const launch = host.command(cmd.binary, daemonArgs(dir, cmd.flavor));
    const child = spawn(launch.file, launch.args, {
      detached: true,
      stdio: ['ignore', log, log],
      // HOME is the instance's folder: a CRI-O would otherwise read root's registry credentials
      // (~/.docker/config.json) for the pulls --pull allows.
      env: { PATH: cmd.path, HOME: dir },
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`${cmd.binary} could not be started`);
    // nsenter execs the daemon in place: the start time read now is the daemon's too.
    const started = recordProcess(child.pid);
    writeFileSync(p.pidFile, `${child.pid} ${started?.startTime ?? ''}\n`);
    return child.pid;
  } finally {
    closeSync(log);
  }
}

/** The daemon's pid when it runs and its command line names this instance's config. */
export function runningDaemon(dir: string, flavor: Flavor): number | undefined {
  const recorded = recordedDaemon(dir, flavor);
  if (recorded === undefined || !runs(recorded)) return undefined;
  return cmdlineOf(recorded.pid)?.includes(layoutPaths(dir, flavor).config) ? recorded.pid : undefined;
}

/** `<pid> <start time>`; files of older runs hold the pid alone. */
function recordedDaemon(dir: string, flavor: Flavor): RecordedProcess | undefined {
  try {
    const [pid, startTime = ''] = readFileSync(layoutPaths(dir, flavor).pidFile, 'utf8').trim().split(' ');
    return Number.isInteger(Number(pid)) && pid !== '' ? { pid: Number(pid), startTime } : undefined;
  } catch {
    return undefined;
  }
}

/** With a start time, the same process; a bare pid of an older file only by its command line (the caller). */
function runs(recorded: RecordedProcess): boolean {
  return recorded.startTime === '' ? alive(recorded.pid) : stillRunning(recorded);
}

/** Resolves once the daemon answers CRI Version; fails early when it exits. */
export async function waitAnswering(
  dir: string,
  flavor: Flavor,
  withinMs: number,
  signal?: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  const endpoint = `unix://${layoutPaths(dir, flavor).socket}`;
  for (;;) {
    signal?.throwIfAborted();
    // Running, not its command line: nsenter execs the daemon after the spawn returned, and during an exec
    // the command line reads empty.
    const recorded = recordedDaemon(dir, flavor);
    if (recorded === undefined || !runs(recorded))
      throw new Error(`the private ${flavor} exited: ${logTail(dir, flavor)}`);
    try {
      const client = await CriClient.connect({ runtimeEndpoint: endpoint, connectTimeoutMs: 1_000 });
      client.close();
      return;
    } catch (e) {
      if (Date.now() > deadline) {
        throw new Error(
          `the private ${flavor} did not answer within ${withinMs} ms (${String(e)}): ${logTail(dir, flavor)}`,
        );
      }
    }
    await sleep(POLL_MS);
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone or `killWaitMs` more passed. */
export async function stopDaemon(
  dir: string,
  flavor: Flavor,
  graceMs = DAEMON_STOP_GRACE_MS,
  killWaitMs = DAEMON_KILL_WAIT_MS,
): Promise<void> {
  const pid = runningDaemon(dir, flavor);
  if (pid === undefined) return;
  await signalAndWait(pid, 'SIGTERM', graceMs);
  if (alive(pid)) await signalAndWait(pid, 'SIGKILL', killWaitMs);
}

export async function signalAndWait(pid: number, signal: NodeJS.Signals, withinMs: number): Promise<void> {
  try {
    process.kill(pid, signal);
  } catch {
    return; // already gone
  }
  const deadline = Date.now() + withinMs;
  while (alive(pid) && Date.now() < deadline) await sleep(POLL_MS);
}

function logTail(dir: string, flavor: Flavor): string {
  const { log } = layoutPaths(dir, flavor);
  try {
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    return `log ${log} ends: ${lines.slice(-3).join(' | ')}`;
  } catch {
    return `no log in ${dir}`;
  }
}
