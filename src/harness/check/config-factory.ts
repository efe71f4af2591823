/**
 * Pod and container configs that look like the kubelet's (its usual labels and annotations, so plugins and
 * runtimes treat them as real pods) and carry the run's labels and name prefix.
 */
import { randomUUID } from 'node:crypto';
import type {
  ContainerConfig,
  CriMethod,
  CriRequest,
  NamespaceOption,
  PodSandboxConfig,
} from '../../cri/types.js';
import { labelsFor, NAME_PREFIX, POD_NAMESPACE, TRIAL_LABEL, uniqueToken } from '../core/labels.js';
import { containerLogPath, podLogDirectory } from '../host/pod-logs.js';
import type { ConfigFactory, ContainerOptions, PodOptions } from './context.js';
import { trialNamePrefix } from './trial-scope.js';

/** A container that sleeps and ignores nothing: the default workload. */
export const SLEEP_COMMAND = ['sleep', '3600'];

/** How every pod name of a check starts: the delay injectors know the check's pods by it. */
export function podNamePrefix(checkId: string): string {
  return `${NAME_PREFIX}${checkId.toLowerCase()}-`;
}

/** What every pod and container of a run has in common. */
export interface RunShape {
  testImage: string;
  /** The cgroup parent of the tool's own in the runtime's driver (cgroup-parent.ts). */
  cgroupParent: string;
}

/**
 * `forTrial`: the objects belong to that trial of the check: they carry its label (its listings, events and
 * cleanup see only them) and its name prefix (its injector claim).
 */
export function createConfigFactory(
  runId: string,
  checkId: string,
  { testImage, cgroupParent }: RunShape,
  forTrial?: number,
): ConfigFactory {
  const runLabels = {
    ...labelsFor(runId, checkId),
    ...(forTrial === undefined ? {} : { [TRIAL_LABEL]: String(forTrial) }),
  };
  return {
    pod(name: string, opts: PodOptions = {}): PodSandboxConfig {
      const prefix =
        forTrial === undefined ? podNamePrefix(checkId) : trialNamePrefix(podNamePrefix(checkId), forTrial);
      const podName = `${prefix}${name}-${uniqueToken()}`;
      const uid = opts.uid ?? randomUUID();
      return {
        metadata: { name: podName, uid, namespace: POD_NAMESPACE, attempt: opts.attempt ?? 0 },
        hostname: opts.hostNetwork ? '' : podName.slice(0, 63),
        logDirectory: podLogDirectory(runId, POD_NAMESPACE, podName, uid),
        labels: {
          ...opts.labels,
          ...runLabels,
          'io.kubernetes.pod.name': podName,
          'io.kubernetes.pod.namespace': POD_NAMESPACE,
          'io.kubernetes.pod.uid': uid,
        },
        annotations: { 'kubernetes.io/config.source': 'api' },
        linux: {
          cgroupParent,
          securityContext: { namespaceOptions: namespaces(opts.hostNetwork, opts.pidMode) },
        },
      };
    },
    container(name: string, opts: ContainerOptions = {}): ContainerConfig {
      const attempt = opts.attempt ?? 0;
      return {
        metadata: { name, attempt },
        image: { image: testImage, userSpecifiedImage: testImage },
        command: opts.command ?? SLEEP_COMMAND,
        labels: { ...opts.labels, ...runLabels, 'io.kubernetes.container.name': name },
        annotations: { 'io.kubernetes.container.name': name, 'io.kubernetes.container.restartCount': '0' },
        logPath: containerLogPath(name, attempt),
        linux: { securityContext: { namespaceOptions: namespaces(false, opts.pidMode) } },
      };
    },
  };
}

/**
 * The kubelet labels every container with its pod's name, namespace and UID (kuberuntime_labels.go
 * newContainerLabels); it finds a container's pod by them, and a container without them belongs, to a
 * kubelet, to one pod with an empty UID. The pod is known only when the container is created in it.
 */
export function withPodLabels(config: ContainerConfig, pod: PodSandboxConfig): ContainerConfig {
  return {
    ...config,
    labels: {
      'io.kubernetes.pod.name': pod.metadata.name,
      'io.kubernetes.pod.namespace': pod.metadata.namespace,
      'io.kubernetes.pod.uid': pod.metadata.uid,
      ...config.labels,
    },
  };
}

function namespaces(
  hostNetwork: boolean | undefined,
  pidMode: 'POD' | 'CONTAINER' | undefined,
): NamespaceOption {
  return { network: hostNetwork ? 'NODE' : 'POD', pid: pidMode ?? 'POD', ipc: 'POD' };
}

/** A request as the kubelet would send it: a CreateContainer's config carries its pod's labels. */
export function kubeletShaped<M extends CriMethod>(method: M, request: CriRequest<M>): CriRequest<M> {
  if (method !== 'CreateContainer') return request;
  const r = request as CriRequest<'CreateContainer'>;
  if (!r.config || !r.sandboxConfig?.metadata) return request;
  return { ...r, config: withPodLabels(r.config, r.sandboxConfig) } as CriRequest<M>;
}
