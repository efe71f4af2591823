/**
 * The Sonobuoy plugin pod, made through CRI the way the kubelet would make it from
 * deploy/sonobuoy/cri-conform.yaml: its image, command, env and host mounts, a results dir and the
 * config-map dir as Sonobuoy adds them, the host's PID namespace, privileged (and the host network, for the
 * test's stand-in of the sidecar).
 */

import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { CriClient } from '../../cri/client.js';
import type { ContainerState, KeyValue, LinuxContainerResources, Mount } from '../../cri/types.js';
import { SHARED_WITH_NODE } from '../../instance/host-view.js';
import { INSTANCE_ROOTS } from '../../instance/instance-roots.js';
import { ROOT } from '../e2e-env.test.helper.js';

/** The folder of private instances for a node whose /run cannot hold them (instance-roots.ts). */
const VAR_ISOLATED = INSTANCE_ROOTS[1] ?? '';
/** Sonobuoy's defaults for the dirs it mounts into every plugin container (pkg/client/gen.go). */
export const SONOBUOY_RESULTS_DIR = '/tmp/sonobuoy/results';
export const SONOBUOY_CONFIG_DIR = '/tmp/sonobuoy/config';
export const E2E_LABEL = 'cri-conform.io/e2e';

export interface PluginSpec {
  image: string;
  command: string[];
  args: string[];
  env: KeyValue[];
  /** Where the container sees the host's /run and /var/run. */
  hostRun: string;
  hostVarRun: string;
  /** Where the container sees the host's cri-conform dir: instances and pod logs (the same path). */
  sharedRun: string;
  /** Where the pod sees the second folder of private instances (instance-roots.ts). */
  varIsolated: string;
  configMap: Record<string, string>;
  /** The container's resources as the kubelet hands them to the runtime (cgroup shares, quota, limit). */
  resources: LinuxContainerResources;
  /** How long the kubelet waits after SIGTERM before it kills the pod. */
  terminationGracePeriodSeconds: number;
}

/** The parts of the plugin file a pod is made from. */
interface PluginDoc {
  podSpec: { terminationGracePeriodSeconds?: number };
  spec: {
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
    image: string;
    command: string[];
    args: string[];
    env: { name: string; value?: string }[];
    volumeMounts: { name: string; mountPath: string }[];
  };
  'extra-volumes': { name: string; hostPath: { path: string } }[];
  'config-map': Record<string, string>;
}

export function readPluginSpec(): PluginSpec {
  const doc = parse(readFileSync(join(ROOT, 'deploy/sonobuoy/cri-conform.yaml'), 'utf8')) as PluginDoc;
  const mountOf = (hostPath: string): string => {
    const volume = doc['extra-volumes'].find((v) => v.hostPath.path === hostPath);
    const mount = doc.spec.volumeMounts.find((m) => m.name === volume?.name);
    if (!mount) throw new Error(`the plugin file mounts no hostPath ${hostPath}`);
    return mount.mountPath;
  };
  return {
    image: doc.spec.image,
    command: doc.spec.command,
    args: doc.spec.args,
    env: doc.spec.env
      .filter((e) => e.value !== undefined)
      .map((e) => ({ key: e.name, value: e.value ?? '' })),
    hostRun: mountOf('/run'),
    hostVarRun: mountOf('/var/run'),
    sharedRun: mountOf(SHARED_WITH_NODE),
    varIsolated: mountOf(VAR_ISOLATED),
    configMap: doc['config-map'],
    resources: kubeletResources(doc.spec.resources ?? {}),
    terminationGracePeriodSeconds: doc.podSpec.terminationGracePeriodSeconds ?? 30,
  };
}

/**
 * Requests and limits as the kubelet turns them into a container's cgroup settings (kuberuntime
 * generateLinuxContainerResources): CPU shares from the request (1024 per core), a CFS quota from the
 * limit over a 100 ms period, and the memory limit in bytes.
 */
function kubeletResources(r: { requests?: Record<string, string>; limits?: Record<string, string> }) {
  const cores = (q: string | undefined) =>
    q === undefined ? undefined : q.endsWith('m') ? Number(q.slice(0, -1)) / 1000 : Number(q);
  const units: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 };
  const bytes = (q: string | undefined) => {
    const m = /^(\d+)(Ki|Mi|Gi)?$/.exec(q ?? '');
    return m ? Number(m[1]) * (units[m[2] ?? ''] ?? 1) : undefined;
  };
  const request = cores(r.requests?.cpu);
  const limit = cores(r.limits?.cpu);
  const memory = bytes(r.limits?.memory);
  return {
    ...(request === undefined ? {} : { cpuShares: String(Math.round(request * 1024)) }),
    ...(limit === undefined ? {} : { cpuPeriod: '100000', cpuQuota: String(Math.round(limit * 100_000)) }),
    ...(memory === undefined ? {} : { memoryLimitInBytes: String(memory) }),
  };
}

/** The highest memory use of the container's cgroup so far, in MiB (cgroup v1 max_usage, v2 peak). */
export async function peakMemoryMiB(client: CriClient, containerId: string): Promise<number | undefined> {
  const { info } = await client.call('ContainerStatus', { containerId, verbose: true });
  const pid = (JSON.parse(info?.info ?? '{}') as { pid?: number }).pid;
  if (!pid) return undefined;
  const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  const v1 = lines.find((l) => /^\d+:([^:]*,)?memory(,[^:]*)?:/.test(l))?.split(':')[2];
  const v2 = lines.find((l) => l.startsWith('0::'))?.slice(3);
  const file =
    v1 !== undefined
      ? `/sys/fs/cgroup/memory${v1}/memory.max_usage_in_bytes`
      : `/sys/fs/cgroup${v2}/memory.peak`;
  return existsSync(file) ? Math.round(Number(readFileSync(file, 'utf8')) / 2 ** 20) : undefined;
}

export interface WorkerPodOptions {
  spec: PluginSpec;
  /** The throwaway containerd's dir (it holds containerd.sock and nri.sock); undefined: nothing mounted. */
  containerdDir: string | undefined;
  /** A fresh host dir for the pod's results, config-map files and log. */
  hostDir: string;
  progressPort: number;
  nodeName: string;
  /** Plugin env overrides, as `sonobuoy run --plugin-env cri-conform.NAME=value` sets them. */
  env: Record<string, string>;
  /** The pod's UID, as the API server gave it (a kubelet double is told it); a fresh one by default. */
  uid?: string;
}

export interface WorkerPod {
  podId: string;
  containerId: string;
  resultsDir: string;
  logFile: string;
}

export async function startWorkerPod(client: CriClient, o: WorkerPodOptions): Promise<WorkerPod> {
  const resultsDir = join(o.hostDir, 'results');
  const configDir = join(o.hostDir, 'config');
  const logDir = join(o.hostDir, 'logs');
  for (const d of [resultsDir, configDir, logDir]) mkdirSync(d, { recursive: true });
  for (const [file, content] of Object.entries(o.spec.configMap))
    writeFileSync(join(configDir, file), content);

  mkdirSync(SHARED_WITH_NODE, { recursive: true });
  mkdirSync(VAR_ISOLATED, { recursive: true, mode: 0o700 });
  const mounts: Mount[] = [
    { hostPath: SHARED_WITH_NODE, containerPath: o.spec.sharedRun },
    { hostPath: VAR_ISOLATED, containerPath: o.spec.varIsolated },
    { hostPath: resultsDir, containerPath: SONOBUOY_RESULTS_DIR },
    { hostPath: configDir, containerPath: SONOBUOY_CONFIG_DIR, readonly: true },
  ];
  if (o.containerdDir) {
    // The instance's sockets where the host keeps containerd's and NRI's, under the plugin's mounts.
    mounts.push(
      { hostPath: o.containerdDir, containerPath: `${o.spec.hostRun}/containerd`, readonly: true },
      { hostPath: o.containerdDir, containerPath: `${o.spec.hostVarRun}/nri`, readonly: true },
    );
  }
  const env = new Map(o.spec.env.map((e) => [e.key, e.value]));
  env.set('NODE_NAME', o.nodeName);
  env.set('SONOBUOY_RESULTS_DIR', SONOBUOY_RESULTS_DIR);
  env.set('SONOBUOY_PROGRESS_PORT', String(o.progressPort));
  env.set('SONOBUOY_CONFIG_DIR', SONOBUOY_CONFIG_DIR);
  for (const [k, v] of Object.entries(o.env)) env.set(k, v);

  const name = `sonobuoy-cri-conform-${randomUUID().slice(0, 8)}`;
  // The plugin file's pod has the host's PID namespace only. The host network here is the test's, not the
  // plugin's: the progress server standing in for Sonobuoy's sidecar listens on the host's loopback.
  const namespaces = { network: 'NODE', pid: 'NODE', ipc: 'POD' } as const;
  const uid = o.uid ?? randomUUID();
  // The kubelet's labels: a kubelet (double) tells its pods' containers by io.kubernetes.pod.uid.
  const kubeletLabels = { 'io.kubernetes.pod.name': name, 'io.kubernetes.pod.uid': uid };
  const sandboxConfig = {
    metadata: { name, uid, namespace: 'sonobuoy', attempt: 0 },
    hostname: '',
    logDirectory: logDir,
    labels: { [E2E_LABEL]: 'sonobuoy-worker', ...kubeletLabels },
    annotations: {},
    linux: { securityContext: { namespaceOptions: namespaces, privileged: true } },
  };
  const { podSandboxId } = await client.call('RunPodSandbox', { config: sandboxConfig, runtimeHandler: '' });
  const { containerId } = await client.call('CreateContainer', {
    podSandboxId,
    config: {
      metadata: { name: 'cri-conform', attempt: 0 },
      image: { image: o.spec.image, userSpecifiedImage: o.spec.image },
      command: o.spec.command,
      args: o.spec.args,
      envs: [...env].map(([key, value]) => ({ key, value })),
      mounts,
      labels: { [E2E_LABEL]: 'sonobuoy-worker', ...kubeletLabels },
      annotations: {},
      logPath: 'cri-conform.log',
      linux: {
        resources: o.spec.resources,
        securityContext: { namespaceOptions: namespaces, privileged: true },
      },
    },
    sandboxConfig,
  });
  await client.call('StartContainer', { containerId });
  return { podId: podSandboxId, containerId, resultsDir, logFile: join(logDir, 'cri-conform.log') };
}

export async function containerState(client: CriClient, containerId: string): Promise<ContainerState> {
  const { status } = await client.call('ContainerStatus', { containerId, verbose: false });
  return status?.state ?? 'CONTAINER_UNKNOWN';
}

/** The container's output without the CRI log prefix ("<time> stdout F "). */
export function podLog(file: string): string {
  if (!existsSync(file)) return '(no log)';
  return readFileSync(file, 'utf8').replace(/^\S+ (stdout|stderr) [FP] /gm, '');
}

/** Stops and removes the pod; what is already gone is fine. */
export async function removeWorkerPod(client: CriClient, podId: string): Promise<void> {
  await client.call('StopPodSandbox', { podSandboxId: podId });
  await client.call('RemovePodSandbox', { podSandboxId: podId });
}
