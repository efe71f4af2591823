/**
 * What of a private instance (--isolated) the host still holds, looked at from the host itself, and where
 * a new instance appears: shared by the CLI's and the Sonobuoy pod's e2e tests.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CriClient } from '../cri/client.js';
import { RUN_LABEL } from '../harness/core/labels.js';
import { isDir } from '../instance/dir-entries.js';
import { INSTANCE_ROOTS } from '../instance/instance-roots.js';

const NETNS = /\/(?:var\/)?run\/netns\/cni-[0-9a-f-]{36}/g;

/** What the instance made that the test saw while it ran: its pods' and containers' ids and netns. */
export interface SeenObjects {
  ids: Set<string>;
  netns: Set<string>;
  /** The run label of the pods seen. */
  runIds: Set<string>;
}

/** Processes, mounts, its bridge, its directory; and the netns and cgroups of the objects seen. */
export function hostTraces(dir: string, bridge: string, seen?: SeenObjects): string[] {
  const traces: string[] = [];
  if (existsSync(dir)) traces.push(`directory ${dir}`);
  if (readFileSync('/proc/self/mountinfo', 'utf8').includes(`${dir}/`)) traces.push(`mounts under ${dir}`);
  const ps = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  for (const line of ps.split('\n')) if (line.includes(`${dir}/`)) traces.push(`process ${line.trim()}`);
  try {
    execFileSync('ip', ['link', 'show', 'dev', bridge], { stdio: 'ignore' });
    traces.push(`bridge ${bridge}`);
  } catch {
    // gone, as it should be
  }
  for (const ns of seen?.netns ?? []) if (existsSync(ns)) traces.push(`netns ${ns}`);
  if (seen && seen.ids.size > 0) for (const d of cgroupsNamed(seen.ids)) traces.push(`cgroup ${d}`);
  return traces;
}

/** The directory of a new private instance of `target`, once its instance file exists. */
export async function newInstanceDir(
  target: string,
  before: ReadonlySet<string>,
  withinMs: number,
): Promise<string> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    for (const dir of instanceNames()) {
      const file = join(dir, 'instance.json');
      if (before.has(dir) || !existsSync(file)) continue;
      if ((JSON.parse(readFileSync(file, 'utf8')) as { target: string }).target === target) return dir;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(
    `no private instance of ${target} appeared in ${INSTANCE_ROOTS.join(' or ')} within ${withinMs} ms`,
  );
}

/** The directories of every private instance on this host, wherever it was put. */
export function instanceNames(): Set<string> {
  return new Set(
    INSTANCE_ROOTS.flatMap((root) => (existsSync(root) ? readdirSync(root).map((n) => join(root, n)) : [])),
  );
}

/**
 * Resolves, once the copy lists a pod of the tool's named `namePrefix`…, with that pod's run id; the copy
 * may not answer yet when this starts.
 */
export async function untilCopyHasPod(dir: string, withinMs: number, namePrefix = 'cc-'): Promise<string> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    const runId = await runIdOfPod(`unix://${dir}/containerd.sock`, namePrefix).catch(() => undefined);
    if (runId !== undefined) return runId;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the private instance in ${dir} made no pod named ${namePrefix}… within ${withinMs} ms`);
}

async function runIdOfPod(endpoint: string, namePrefix: string): Promise<string | undefined> {
  const client = await CriClient.connect({
    runtimeEndpoint: endpoint,
    connectTimeoutMs: 500,
    defaultDeadlineMs: 2_000,
  });
  try {
    const { items } = await client.call('ListPodSandbox', { filter: null });
    const pod = items.find(
      (p) => p.labels[RUN_LABEL] !== undefined && p.metadata?.name.startsWith(namePrefix),
    );
    return pod?.labels[RUN_LABEL];
  } finally {
    client.close();
  }
}

/**
 * Watches the instance in `dir` through its CRI socket until stopped, collecting the ids of its pods and
 * containers and the netns paths of its pods: what its removal must leave nothing of.
 */
export function watchInstance(dir: string, everyMs = 100): { seen: SeenObjects; stop(): Promise<void> } {
  return watchRuntime(`unix://${dir}/containerd.sock`, dir, everyMs);
}

/** The same for a runtime at `endpoint` (its cri-conform objects only), and the logs of an instance `dir`. */
export function watchRuntime(
  endpoint: string,
  dir?: string,
  everyMs = 100,
): { seen: SeenObjects; stop(): Promise<void> } {
  const seen: SeenObjects = { ids: new Set(), netns: new Set(), runIds: new Set() };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      if (dir !== undefined) fromLogs(dir, seen);
      await look(endpoint, seen).catch(() => undefined);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    seen,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/** The daemon's log names every id it made, and the slow CNI's log every netns: up to the last moment. */
function fromLogs(dir: string, seen: SeenObjects): void {
  // The instance's removal may take the file between any two looks: read it, or take nothing.
  const text = (file: string) => {
    try {
      return readFileSync(file, 'latin1');
    } catch {
      return '';
    }
  };
  for (const id of text(join(dir, 'containerd.log')).match(/(?<!sha256:)\b[0-9a-f]{64}\b/g) ?? [])
    seen.ids.add(id);
  for (const ns of text(join(dir, 'slow-cni', 'added.log')).match(NETNS) ?? []) seen.netns.add(ns);
}

async function look(endpoint: string, seen: SeenObjects): Promise<void> {
  const client = await CriClient.connect({
    runtimeEndpoint: endpoint,
    connectTimeoutMs: 500,
    defaultDeadlineMs: 2_000,
  });
  try {
    const [{ items }, { containers }] = await Promise.all([
      client.call('ListPodSandbox', { filter: null }),
      client.call('ListContainers', { filter: null }),
    ]);
    for (const c of containers.filter((c) => c.labels[RUN_LABEL] !== undefined)) seen.ids.add(c.id);
    for (const pod of items.filter((p) => p.labels[RUN_LABEL] !== undefined)) {
      seen.runIds.add(pod.labels[RUN_LABEL] ?? '');
      if (seen.ids.has(pod.id)) continue;
      seen.ids.add(pod.id);
      const status = await client.call('PodSandboxStatus', { podSandboxId: pod.id, verbose: true });
      for (const ns of JSON.stringify(status.info).match(NETNS) ?? []) seen.netns.add(ns);
    }
  } finally {
    client.close();
  }
}

/** Cgroup directories named after one of the ids, a few levels below each hierarchy. */
function cgroupsNamed(ids: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const walk = (d: string, depth: number) => {
    let names: string[] = [];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(d, name);
      if (!isDir(path)) continue;
      if (ids.has(name)) found.push(path);
      else if (depth < 5) walk(path, depth + 1);
    }
  };
  walk('/sys/fs/cgroup', 0);
  return found;
}

/** Names that no bundled archive has: only a node whose runtime was given them holds these images. */
export const NODE_ONLY_IMAGES = {
  testImage: 'registry.example/cc-e2e/busybox:1',
  pauseImage: 'registry.example/cc-e2e/pause:1',
};

/**
 * Gives the node's runtime the bundled images under NODE_ONLY_IMAGES' names too (ctr on its socket, in
 * the CRI namespace); resolves with the function that takes the names away again.
 */
export function tagNodeOnlyImages(endpoint: string, env: Record<string, string>): () => void {
  const socket = endpoint.replace(/^unix:\/\//, '');
  const ctr = (...args: string[]) =>
    execFileSync('ctr', ['-a', socket, '-n', 'k8s.io', 'images', ...args], { stdio: 'ignore' });
  const pairs = [
    [env.CRI_CONFORM_TEST_IMAGE ?? 'localhost/cri-conform/busybox:1', NODE_ONLY_IMAGES.testImage],
    [env.CRI_CONFORM_PAUSE_IMAGE ?? 'localhost/cri-conform/pause:1', NODE_ONLY_IMAGES.pauseImage],
  ] as const;
  for (const [from, to] of pairs) ctr('tag', '--force', from, to);
  return () => {
    for (const [, to] of pairs) ctr('rm', to);
  };
}
