/**
 * The process that owns a run's folder on the host, and whether it still runs, so that `cleanup` can remove
 * what a killed run left and never what a running one uses. An owner is its pid with its start time (a
 * reused pid is another process), its pid namespace (a run in a pod, as under Sonobuoy, records the pid it
 * has there) and the boot. When this process cannot tell, the owner counts as running.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { listPids, readProc } from './proc.js';

export interface RunOwner {
  pid: number;
  startTime: string;
  pidNamespace: string;
  bootId: string;
}

/** What this process sees of the host's processes; a fake in tests. */
export interface ProcessView {
  bootId: string;
  pidNamespace: string;
  /** Whether it sees every process and its namespace: root in the host's pid namespace. */
  seesAllProcesses: boolean;
  /** The start time of a pid of its own namespace, undefined when none runs. */
  startTimeOf(pid: number): string | undefined;
  /** Whether a process that started at `startTime` runs in the pid namespace `namespace`. */
  runsIn(namespace: string, startTime: string): boolean;
}

export function hostProcessView(): ProcessView {
  return {
    bootId: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
    pidNamespace: pidNamespaceOf('self') ?? '',
    seesAllProcesses: process.getuid?.() === 0 && inHostPidNamespace(),
    startTimeOf: runningStartTime,
    runsIn: (namespace, startTime) =>
      listPids().some(
        (pid) => pidNamespaceOf(String(pid)) === namespace && runningStartTime(pid) === startTime,
      ),
  };
}

export function currentOwner(view: ProcessView = hostProcessView()): RunOwner {
  return {
    pid: process.pid,
    startTime: view.startTimeOf(process.pid) ?? '',
    pidNamespace: view.pidNamespace,
    bootId: view.bootId,
  };
}

/** True only when the owner is known to have exited; a run this process cannot see counts as running. */
export function ownerGone(owner: RunOwner, view: ProcessView = hostProcessView()): boolean {
  // Every process of an earlier boot is gone, and pids and start times begin anew after it.
  if (owner.bootId !== view.bootId) return true;
  if (owner.pidNamespace === view.pidNamespace) return view.startTimeOf(owner.pid) !== owner.startTime;
  return view.seesAllProcesses && !view.runsIn(owner.pidNamespace, owner.startTime);
}

/** Parses what `currentOwner` wrote; undefined for anything else. */
export function parseOwner(text: string): RunOwner | undefined {
  try {
    const o = JSON.parse(text) as Partial<RunOwner>;
    const strings = [o.startTime, o.pidNamespace, o.bootId].every((s) => typeof s === 'string' && s !== '');
    return typeof o.pid === 'number' && strings ? (o as RunOwner) : undefined;
  } catch {
    return undefined;
  }
}

/** A killed run whose parent has not reaped it yet is a zombie: it has exited all the same. */
function runningStartTime(pid: number): string | undefined {
  const p = readProc(pid);
  return p && p.state !== 'Z' && p.state !== 'X' ? p.startTime : undefined;
}

function pidNamespaceOf(pid: string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

/** In the host's pid namespace a process has one pid; in a nested one, NSpid lists one per level. */
function inHostPidNamespace(): boolean {
  const nspid = /^NSpid:\s*(.*)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  return nspid !== undefined && nspid.trim().split(/\s+/).length === 1;
}
