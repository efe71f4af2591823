/**
 * `<dir>/instance.json`: what a private instance is, written before anything of it exists on the host, so
 * that removal (now, by `cri-conform cleanup` after a killed run, or by its restart command) finds
 * everything through the directory alone. Instances live under the folders of instance-roots.ts, one per run.
 */
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HostView } from './host-view.js';
import type { Flavor } from './layout.js';
import type { PrivateNetwork } from './network.js';
import { startTimeOf } from './processes.js';

export const INSTANCE_FILE = 'instance.json';

export interface InstanceFile {
  id: string;
  /** The CRI endpoint of the node's runtime this instance copies. */
  target: string;
  owner: { pid: number; startTime: string };
  binary: string;
  /** Absent in the files of runs before CRI-O was supported: containerd. */
  flavor?: Flavor;
  /** PATH of the private daemon. */
  path: string;
  runcBinary: string;
  /** From a pod: a process in the node's mount namespace, where the instance runs (host-view.ts). */
  hostAnchor?: number;
  network: PrivateNetwork;
}

/** Written whole or not at all (a rename): cleanup and a sweep may read it while it is rewritten. */
export function writeInstanceFile(dir: string, info: InstanceFile): void {
  const partial = join(dir, `${INSTANCE_FILE}.partial`);
  writeFileSync(partial, `${JSON.stringify(info, null, 2)}\n`);
  renameSync(partial, join(dir, INSTANCE_FILE));
}

export function readInstanceFile(dir: string): InstanceFile | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, INSTANCE_FILE), 'utf8')) as InstanceFile;
  } catch {
    return undefined;
  }
}

/** The current process as an instance's owner. */
export function selfAsOwner(): InstanceFile['owner'] {
  return { pid: process.pid, startTime: startTimeOf(process.pid) ?? '' };
}

/** The instance's flavor; files written before CRI-O was supported name none, and are containerd's. */
export function flavorOf(info: InstanceFile): Flavor {
  return info.flavor ?? 'containerd';
}

/** How the instance's processes and node files are reached from this process. */
export function hostViewOf(info: InstanceFile): HostView {
  return HostView.recorded(info.hostAnchor);
}

export function ownerAlive(owner: InstanceFile['owner']): boolean {
  return startTimeOf(owner.pid) === owner.startTime;
}

/** Instance directories under `base` whose owner is gone, for `target` (every target when undefined). */
export function orphanedInstances(base: string, target?: string): Array<{ dir: string; info: InstanceFile }> {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const dir = join(base, name);
    const info = readInstanceFile(dir);
    if (!info || ownerAlive(info.owner)) return [];
    if (target !== undefined && info.target !== target) return [];
    return [{ dir, info }];
  });
}
