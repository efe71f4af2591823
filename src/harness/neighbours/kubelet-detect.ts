/**
 * Is a kubelet driving the runtime under test? A kubelet stops, within about two seconds, every READY pod
 * it did not start (kubelet_pods.go HandlePodCleanups, every 2 s) and its container GC removes what is
 * stopped: beside one, a check's pods die under it and its verdicts say nothing about the runtime. Two
 * independent signs, either one enough:
 * - a process on this node that runs a kubelet (a `kubelet`, or one embedded in k3s, RKE2's supervisor or
 *   MicroK8s' kubelite: kubelet-endpoints.ts) whose runtime endpoint is the same socket, compared by inode
 *   as that process sees the path (its cwd and root), so symlinks, relative paths and unix:// all resolve;
 * - READY sandboxes that carry the kubelet's `io.kubernetes.pod.uid` label and are not cri-conform's: pods a
 *   kubelet (or something acting like one) runs right now, even when its process is out of sight.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { CriClient } from '../../cri/client.js';
import { isOurPod } from '../core/labels.js';
import { listPids } from '../host/proc.js';
import {
  type KubeletEndpoint,
  type KubeletKind,
  kubeletEndpointOf,
  kubeletKind,
} from './kubelet-endpoints.js';

const SHOWN_PODS = 3;

export interface KubeletEvidence {
  /** One line per sign found; empty when no kubelet was seen. */
  signs: string[];
}

/** Both signs for the runtime at `endpoint`; a sign that cannot be looked for counts as not found. */
export async function detectKubelet(
  client: CriClient,
  endpoint: string,
  procRoot = '/proc',
): Promise<KubeletEvidence> {
  const signs = kubeletProcessesOn(endpoint, procRoot).map(
    (k) =>
      `${k.kind === 'kubelet' ? 'kubelet' : `${k.kind} (a kubelet inside)`} process ${k.pid} uses this socket (${k.source} ${k.endpoint})`,
  );
  const pods = await foreignKubeletPods(client);
  if (pods.length > 0) {
    const shown = pods.slice(0, SHOWN_PODS).join(', ');
    const more = pods.length > SHOWN_PODS ? ` and ${pods.length - SHOWN_PODS} more` : '';
    signs.push(
      `${pods.length} READY ${pods.length === 1 ? 'pod' : 'pods'} of a kubelet, not of cri-conform (${shown}${more})`,
    );
  }
  return { signs };
}

/**
 * Namespace/name of READY sandboxes with the kubelet's pod UID label that are not cri-conform's: a pod
 * labelled cri-conform.io/run without the other marks is a kubelet's too.
 */
export async function foreignKubeletPods(client: CriClient): Promise<string[]> {
  const { items } = await client.call('ListPodSandbox', { filter: { state: { state: 'SANDBOX_READY' } } });
  // Filtered again here: a runtime that ignores the state filter must not make stopped pods count.
  return items
    .filter((p) => p.state === 'SANDBOX_READY')
    .filter((p) => p.labels['io.kubernetes.pod.uid'] !== undefined && !isOurPod(p))
    .map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
}

export interface KubeletProcess extends KubeletEndpoint {
  pid: number;
  kind: KubeletKind;
}

/** Processes running a kubelet whose runtime endpoint is the socket at `endpoint` (none for a tcp endpoint). */
export function kubeletProcessesOn(endpoint: string, procRoot = '/proc'): KubeletProcess[] {
  const ours = socketIdentity(endpoint, '/', '/');
  if (!ours) return [];
  let pids: number[];
  try {
    pids = listPids(procRoot);
  } catch {
    return [];
  }
  return pids.flatMap((pid) => {
    const argv = readArgv(join(procRoot, String(pid), 'cmdline'));
    const kind = argv && kubeletKind(argv);
    if (!argv || !kind) return [];
    const root = join(procRoot, String(pid), 'root');
    const cwd = join(procRoot, String(pid), 'cwd');
    const found = kubeletEndpointOf(kind, argv, {
      read: (file) => readFileSync(inProcess(root, cwd, file), 'utf8'),
      list: (dir) => {
        try {
          return readdirSync(inProcess(root, cwd, dir));
        } catch {
          return [];
        }
      },
      environ: readEnviron(join(procRoot, String(pid), 'environ')),
    });
    const theirs = socketIdentity(found.endpoint, root, cwd);
    return theirs === ours ? [{ pid, kind, ...found }] : [];
  });
}

function readEnviron(path: string): Record<string, string> {
  try {
    const pairs = readFileSync(path, 'utf8').split('\0').filter(Boolean);
    return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
  } catch {
    return {};
  }
}

function readArgv(path: string): string[] | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    return text === '' ? undefined : text.replace(/\0$/, '').split('\0');
  } catch {
    return undefined; // exited, or not ours to read
  }
}

/** A path as the process sees it, reached through its /proc root (absolute) or cwd (relative). */
function inProcess(root: string, cwd: string, path: string): string {
  return isAbsolute(path) ? join(root, path) : join(cwd, path);
}

/** "dev:ino" of the socket an endpoint names, as seen from `root`/`cwd`; undefined for tcp or no file. */
function socketIdentity(endpoint: string, root: string, cwd: string): string | undefined {
  const raw = endpoint.trim();
  // The kubelet also takes a relative path after unix:// (unix://run/x.sock), which parseEndpoint refuses.
  const path = raw.startsWith('unix://') ? raw.slice('unix://'.length) : raw;
  if (!isAbsolute(path) && raw.includes('://')) return undefined;
  try {
    const s = statSync(inProcess(root, cwd, path));
    return s.isSocket() ? `${s.dev}:${s.ino}` : undefined;
  } catch {
    return undefined;
  }
}
