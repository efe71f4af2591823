/**
 * Starting and stopping the private daemon. It runs in a session of its own (a Ctrl-C to cri-conform
 * reaches cri-conform, which then removes the instance in order), with the node daemon's PATH behind the
 * binary's own directory, so that it finds the node's shims and runc; from a pod it runs in the node's
 * mount namespace (host-view.ts). Its pid is recorded in the
 * instance's directory and is only ever signalled after its command line proved it is this instance's.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CriClient } from '../cri/client.js';
import type { HostView } from './host-view.js';
import { daemonArgs, type Flavor, layoutPaths } from './layout.js';
import { alive, cmdlineOf } from './processes.js';

const POLL_MS = 50;

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
    writeFileSync(p.pidFile, `${child.pid}\n`);
    return child.pid;
  } finally {
    closeSync(log);
  }
}

/** The daemon's pid when it runs and its command line names this instance's config. */
export function runningDaemon(dir: string, flavor: Flavor): number | undefined {
  const pid = recordedPid(dir, flavor);
  if (pid === undefined) return undefined;
  const argv = cmdlineOf(pid);
  return argv?.includes(layoutPaths(dir, flavor).config) && alive(pid) ? pid : undefined;
}

function recordedPid(dir: string, flavor: Flavor): number | undefined {
  try {
    return Number(readFileSync(layoutPaths(dir, flavor).pidFile, 'utf8').trim());
  } catch {
    return undefined;
  }
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
    // Alive, not its command line: nsenter execs the daemon after the spawn returned, and during an exec
    // the command line reads empty. The pid was recorded a moment ago, so it cannot have been reused.
    const pid = recordedPid(dir, flavor);
    if (pid === undefined || !alive(pid))
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

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function stopDaemon(dir: string, flavor: Flavor, graceMs = 15_000): Promise<void> {
  const pid = runningDaemon(dir, flavor);
  if (pid === undefined) return;
  await signalAndWait(pid, 'SIGTERM', graceMs);
  if (alive(pid)) await signalAndWait(pid, 'SIGKILL', 5_000);
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
