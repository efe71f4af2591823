/**
 * Is a kubelet driving the runtime under test? A kubelet stops, within about two seconds, every READY pod
 * it did not start (kubelet_pods.go HandlePodCleanups, every 2 s) and its container GC removes what is
 * stopped: beside one, a check's pods die under it and its verdicts say nothing about the runtime. Two
 * independent signs, either one enough:
 * - a kubelet process on this node whose runtime endpoint is the same socket (the kubelet's
 *   --container-runtime-endpoint flag, else `containerRuntimeEndpoint` of its --config file, else its
 *   default), compared by inode as the kubelet sees the path (its cwd and root), so symlinks, relative
 *   paths and unix:// all resolve;
 * - READY sandboxes that carry the kubelet's `io.kubernetes.pod.uid` label and are not cri-conform's: pods a
 *   kubelet (or something acting like one) runs right now, even when its process is out of sight.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { CriClient } from '../cri/client.js';
import { isOurPod } from './labels.js';
import { listPids } from './proc.js';

/** The kubelet's default since v1.27 (staging/src/k8s.io/kubelet/config/v1beta1 defaults). */
const KUBELET_DEFAULT_ENDPOINT = 'unix:///run/containerd/containerd.sock';
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
    (k) => `kubelet process ${k.pid} uses this socket (${k.source} ${k.endpoint})`,
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

export interface KubeletProcess {
  pid: number;
  endpoint: string;
  source: '--container-runtime-endpoint' | 'containerRuntimeEndpoint of --config' | 'the default';
}

/** Kubelet processes whose runtime endpoint is the socket at `endpoint` (none for a tcp endpoint). */
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
    if (!argv || basename(argv[0] ?? '') !== 'kubelet') return [];
    const root = join(procRoot, String(pid), 'root');
    const cwd = join(procRoot, String(pid), 'cwd');
    const found = kubeletEndpoint(argv, (file) => readFileSync(inProcess(root, cwd, file), 'utf8'));
    const theirs = socketIdentity(found.endpoint, root, cwd);
    return theirs === ours ? [{ pid, ...found }] : [];
  });
}

/** The endpoint a kubelet with this command line uses: the flag wins over its config file, then the default. */
export function kubeletEndpoint(
  argv: readonly string[],
  readConfig: (path: string) => string,
): Omit<KubeletProcess, 'pid'> {
  const flag = flagValue(argv, '--container-runtime-endpoint');
  if (flag) return { endpoint: flag, source: '--container-runtime-endpoint' };
  const config = flagValue(argv, '--config');
  if (config) {
    try {
      const parsed = parseYaml(readConfig(config)) as { containerRuntimeEndpoint?: unknown } | null;
      const value = parsed?.containerRuntimeEndpoint;
      if (typeof value === 'string' && value !== '')
        return { endpoint: value, source: 'containerRuntimeEndpoint of --config' };
    } catch {
      // An unreadable config: the kubelet would not start with it either; its default is the best guess.
    }
  }
  return { endpoint: KUBELET_DEFAULT_ENDPOINT, source: 'the default' };
}

/** `--name=value` or `--name value` (pflag also takes a single dash); the last one wins, as in pflag. */
function flagValue(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  const short = name.slice(1);
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    for (const spelling of [name, short]) {
      if (arg === spelling) value = argv[i + 1];
      else if (arg.startsWith(`${spelling}=`)) value = arg.slice(spelling.length + 1);
    }
  }
  return value;
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
