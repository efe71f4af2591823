/**
 * Where the private instance's folder goes: the first of INSTANCE_ROOTS whose filesystem, as the node
 * mounts it, lets the daemon execute the wrappers kept there and has room for the images it imports
 * while keeping a tenth of itself (at least 64 MiB) free. From a pod the folder must also be the node's
 * own (the plugin mounts it at the same path). None fits: one line naming each place and why not.
 */
import { realpathSync, statfsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { HostView } from './host-view.js';
import { INSTANCE_ROOTS } from './instance-roots.js';

const MIB = 1 << 20;
const MIN_FREE_BYTES = 64 * MIB;
/** The archive, the copy's content store, and the unpacked layers (up to three times the compressed size). */
const IMAGE_SPACE_FACTOR = 5;

export class NoPlaceForInstance extends Error {
  readonly code = 'ERR_NO_PLACE_FOR_INSTANCE';
  override readonly name = 'NoPlaceForInstance';
}

/** Bytes the instance's folder needs for images of `imageBytes` (compressed, as the node holds them). */
export function spaceNeeded(imageBytes: number): number {
  return IMAGE_SPACE_FACTOR * imageBytes;
}

/** The first root that fits; throws NoPlaceForInstance with every root's reason when none does. */
export function chooseInstanceRoot(host: HostView, imageBytes: number, roots = INSTANCE_ROOTS): string {
  const reasons: string[] = [];
  for (const root of roots) {
    const why = unfit(host, root, spaceNeeded(imageBytes));
    if (why === undefined) return root;
    reasons.push(`${root}: ${why}`);
  }
  throw new NoPlaceForInstance(
    `no folder for the private instance: ${reasons.join('; ')} (it needs exec and ${mib(spaceNeeded(imageBytes))} for its images plus a tenth of the filesystem free)`,
  );
}

/** Why `root` cannot hold the instance, or undefined when it can. */
export function unfit(host: HostView, root: string, needBytes: number): string | undefined {
  const existing = nearestExisting(host, root);
  if (host.inPod && !sameFile(existing.node, host.path(existing.node)))
    return `not mounted in this pod at the same path as on the node`;
  const mount = mountOf(host.mountinfo(), existing.real);
  if (mount?.options.includes('noexec')) return `its filesystem (${mount.point}) is mounted noexec`;
  const fs = statfsSync(host.path(existing.node));
  const free = Number(fs.bavail) * Number(fs.bsize);
  const keep = Math.max(MIN_FREE_BYTES, (Number(fs.blocks) * Number(fs.bsize)) / 10);
  if (free - needBytes < keep)
    return `${mib(free)} free on ${mount?.point ?? existing.real}, needs ${mib(needBytes)} and keeps ${mib(keep)} free`;
  return undefined;
}

/** The mount (point and per-mount options) whose point is the longest prefix of `path`, from mountinfo. */
export function mountOf(mountinfo: string, path: string): { point: string; options: string[] } | undefined {
  let best: { point: string; options: string[] } | undefined;
  for (const line of mountinfo.split('\n')) {
    const f = line.split(' ');
    const point = (f[4] ?? '').replace(/\\040/g, ' ');
    if (point === '' || !(path === point || path.startsWith(point === '/' ? '/' : `${point}/`))) continue;
    // A later line for the same point is a mount on top of the earlier one.
    if (best === undefined || point.length >= best.point.length)
      best = { point, options: (f[5] ?? '').split(',') };
  }
  return best;
}

/** The nearest ancestor of `root` that exists (a node path), and its real path on the node. */
function nearestExisting(host: HostView, root: string): { node: string; real: string } {
  let node = root;
  while (!exists(host.path(node)) && node !== '/') node = dirname(node);
  // On the node, links (/var/run -> /run) resolve here; through a pod, host.path resolved them already.
  return { node, real: host.inPod ? stripRoot(host.path(node), host) : realpathSync(node) };
}

function stripRoot(path: string, host: HostView): string {
  const root = `/proc/${host.anchor}/root`;
  return path.startsWith(root) ? path.slice(root.length) || '/' : path;
}

function sameFile(a: string, b: string): boolean {
  try {
    const x = statSync(a);
    const y = statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function mib(bytes: number): string {
  return `${Math.round(bytes / MIB)} MiB`;
}
