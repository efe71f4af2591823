/**
 * Which runtime an endpoint names, by the socket file it leads to (device and inode), not by its text: a
 * run records `unix:///var/run/containerd/containerd.sock`, a Sonobuoy worker `/host/run/...` (the host's
 * /run mounted at /host/run), and `cleanup --isolated -r unix:///run/containerd/containerd.sock` on the
 * node must find both. The same file has the same device and inode through every mount of its filesystem.
 */
import { statSync } from 'node:fs';

export interface SocketIdentity {
  dev: number;
  ino: number;
}

/** Where the worker's pod mounts the host's directories (CRI_CONFORM_HOST_ROOT, the plugin file's /host). */
const DEFAULT_HOST_ROOT = '/host';

/**
 * The socket file an endpoint leads to from here: its path, that path under the host root (a node path
 * seen from the worker's pod), the path without the host root (a pod's path seen from the node), each
 * also with /var/run as /run. Symlinks are followed. Undefined for tcp endpoints and missing sockets.
 */
export function socketIdentity(
  endpoint: string,
  hostRoot = process.env.CRI_CONFORM_HOST_ROOT || DEFAULT_HOST_ROOT,
): SocketIdentity | undefined {
  const path = socketPath(endpoint);
  if (path === undefined) return undefined;
  for (const candidate of candidates(path, hostRoot)) {
    try {
      const s = statSync(candidate);
      if (s.isSocket()) return { dev: s.dev, ino: s.ino };
    } catch {
      // not there from here; the next spelling may be
    }
  }
  return undefined;
}

/**
 * Whether a recorded endpoint and a given one name the same runtime. Both are looked up now; when the
 * recorded one no longer leads to a socket (the runtime is down), its identity at record time stands in,
 * and when neither can be looked up, their paths compare once the host root and /var/run are taken out.
 */
export function sameRuntime(
  recorded: { endpoint: string; identity?: SocketIdentity | undefined },
  given: string,
  hostRoot = process.env.CRI_CONFORM_HOST_ROOT || DEFAULT_HOST_ROOT,
): boolean {
  const theirs = socketIdentity(recorded.endpoint, hostRoot) ?? recorded.identity;
  const ours = socketIdentity(given, hostRoot);
  if (theirs !== undefined && ours !== undefined) return theirs.dev === ours.dev && theirs.ino === ours.ino;
  const a = socketPath(recorded.endpoint);
  const b = socketPath(given);
  return a !== undefined && b !== undefined && canonical(a, hostRoot) === canonical(b, hostRoot);
}

function socketPath(endpoint: string): string | undefined {
  const path = endpoint.trim().replace(/^unix:\/\//, '');
  return path.startsWith('/') ? path : undefined;
}

function candidates(path: string, hostRoot: string): string[] {
  const root = hostRoot.replace(/\/+$/, '');
  const underRoot = root !== '' && path.startsWith(`${root}/`);
  const onNode = underRoot ? path.slice(root.length) : path;
  const nodeSpellings = [onNode, onNode.replace(/^\/var\/run\//, '/run/')];
  const viaRoot = root === '' ? [] : nodeSpellings.map((p) => `${root}${p}`);
  return [...new Set([path, ...nodeSpellings, ...viaRoot])];
}

function canonical(path: string, hostRoot: string): string {
  const root = hostRoot.replace(/\/+$/, '');
  const onNode = root !== '' && path.startsWith(`${root}/`) ? path.slice(root.length) : path;
  return onNode.replace(/^\/var\/run\//, '/run/');
}
