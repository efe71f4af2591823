/**
 * Paths of the host as seen through a mount of its directories under a root (/host). A host symlink such
 * as /var/run -> /run is absolute and would point into the container, so links are followed inside the
 * root instead.
 */
import { lstatSync, readlinkSync, statSync } from 'node:fs';
import { posix } from 'node:path';

const MAX_LINKS = 40; // as the kernel's own limit on nested symlinks

/** The container path of a host path, with the host's symlinks resolved below `root`. */
export function resolveUnderRoot(root: string, hostPath: string): string {
  let pending = parts(hostPath);
  let resolved: string[] = [];
  for (let links = 0; pending.length > 0; ) {
    const [head, ...rest] = pending;
    pending = rest;
    if (head === undefined || head === '.') continue;
    if (head === '..') {
      resolved.pop();
      continue;
    }
    const candidate = [...resolved, head];
    const inContainer = posix.join(root, ...candidate);
    const target = linkTarget(inContainer);
    if (target === undefined) {
      resolved = candidate;
      continue;
    }
    if (++links > MAX_LINKS) return inContainer;
    if (target.startsWith('/')) resolved = [];
    pending = [...parts(target), ...pending];
  }
  return posix.join(root, ...resolved);
}

/** True when the path is a unix socket (following links). */
export function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

function parts(path: string): string[] {
  return path.split('/').filter((p) => p !== '');
}
