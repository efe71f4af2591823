/**
 * `<dir>/instance.json`: what a private instance is, written before anything of it exists on the host, so
 * that removal (now, by its supervisor after the run died, by `cri-conform cleanup --isolated`, or by its
 * restart command) finds everything through the directory alone. The file stays until a removal has looked
 * again and found nothing of the instance; a removal that left something records what beside it.
 * Instances live under the folders of instance-roots.ts, one per run; every instance is also named in an
 * index (one symlink per instance, to its directory), so that sweeps find it wherever it was put.
 */
import {
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  currentOwner,
  ownerGone,
  type RunOwner,
  type SocketIdentity,
  sameRuntime,
} from '../harness/runtime-instance.js';
import { readdirSafe } from './dir-entries.js';
import { HostView, type RecordedAnchor } from './host-view.js';
import { INSTANCE_ROOTS } from './instance-roots.js';
import type { Flavor } from './layout.js';
import type { PrivateNetwork } from './network.js';
import { type RecordedProcess, stillRunning } from './processes.js';

export const INSTANCE_FILE = 'instance.json';
/** One symlink per instance, named by its id, to its directory; shared with the worker pod as the rest. */
export const INSTANCE_INDEX = '/run/cri-conform/instances';

export interface InstanceFile {
  id: string;
  /** The CRI endpoint of the node's runtime this instance copies. */
  target: string;
  /** That endpoint's socket when the instance started: stands in for it once the runtime is down. */
  targetSocket?: SocketIdentity;
  /** The run that owns it; files of older runs record only pid and start time. */
  owner: RunOwner | RecordedProcess;
  binary: string;
  /** Absent in the files of runs before CRI-O was supported: containerd. */
  flavor?: Flavor;
  /** PATH of the private daemon. */
  path: string;
  runcBinary: string;
  /**
   * From a pod: a process in the node's mount namespace, where the instance runs (host-view.ts); a bare
   * pid in files of older runs.
   */
  hostAnchor?: RecordedAnchor | number;
  network: PrivateNetwork;
  /** What the last removal could not remove, and when: the next cleanup tries again. */
  leftovers?: { at: string; what: string[] };
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
export function selfAsOwner(): RunOwner {
  return currentOwner();
}

/** The instance's flavor; files written before CRI-O was supported name none, and are containerd's. */
export function flavorOf(info: InstanceFile): Flavor {
  return info.flavor ?? 'containerd';
}

/** How the instance's processes and node files are reached from this process. */
export function hostViewOf(info: InstanceFile): HostView {
  return HostView.recorded(info.hostAnchor);
}

/** True unless the owner is known to have exited (run-owner.ts); an owner this process cannot see runs. */
export function ownerAlive(owner: InstanceFile['owner']): boolean {
  return 'bootId' in owner ? !ownerGone(owner) : stillRunning(owner);
}

/** Names the instance in the index; before anything of it exists on the host. */
export function indexInstance(id: string, dir: string, index = INSTANCE_INDEX): void {
  mkdirSync(index, { recursive: true });
  rmSync(join(index, id), { force: true });
  symlinkSync(dir, join(index, id));
}

/** Takes the instance out of the index, once nothing of it is left. */
export function unindexInstance(id: string, dir: string, index = INSTANCE_INDEX): void {
  const entry = join(index, id);
  if (linkTarget(entry) === dir) rmSync(entry, { force: true });
}

/** Where to look for instances: the index, and the folders instances are put in (runs from before it). */
export interface InstancePlaces {
  index: string;
  bases: readonly string[];
}

const DEFAULT_PLACES: InstancePlaces = { index: INSTANCE_INDEX, bases: INSTANCE_ROOTS };

/** Every instance directory with a record, each once; index entries whose directory is gone are dropped. */
export function recordedInstances(places = DEFAULT_PLACES): Array<{ dir: string; info: InstanceFile }> {
  const dirs = new Set<string>();
  for (const name of readdirSafe(places.index)) {
    const dir = linkTarget(join(places.index, name));
    if (dir === undefined) continue;
    if (readInstanceFile(dir)) dirs.add(dir);
    else rmSync(join(places.index, name), { force: true });
  }
  for (const base of places.bases) for (const name of readdirSafe(base)) dirs.add(join(base, name));
  return [...dirs].flatMap((dir) => {
    const info = readInstanceFile(dir);
    return info ? [{ dir, info }] : [];
  });
}

/** Instances whose owner is gone, of the runtime at `target` (compared by its socket) or of every one. */
export function orphanedInstances(
  target?: string,
  places = DEFAULT_PLACES,
): Array<{ dir: string; info: InstanceFile }> {
  return recordedInstances(places).filter(
    ({ info }) =>
      !ownerAlive(info.owner) &&
      (target === undefined || sameRuntime({ endpoint: info.target, identity: info.targetSocket }, target)),
  );
}

function linkTarget(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
