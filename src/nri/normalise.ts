/**
 * Wire objects (decoded PodSandbox / Container) to the NriPod / NriContainer vocabulary, and back for
 * the runtime side. Absent fields become empty values.
 */
import type { WireContainer, WirePod } from './messages.js';
import type { NriContainer, NriPod } from './types.js';

export function toNriPod(w: WirePod | null | undefined): NriPod {
  const namespaces = w?.linux?.namespaces ?? [];
  return {
    id: w?.id ?? '',
    name: w?.name ?? '',
    uid: w?.uid ?? '',
    namespace: w?.namespace ?? '',
    labels: { ...(w?.labels ?? {}) },
    annotations: { ...(w?.annotations ?? {}) },
    runtimeHandler: w?.runtimeHandler ?? '',
    pid: w?.pid ?? 0,
    netnsPath: namespaces.find((n) => n.type === 'network')?.path ?? '',
    ips: [...(w?.ips ?? [])],
  };
}

export function toNriContainer(w: WireContainer): NriContainer {
  return {
    id: w.id,
    podSandboxId: w.podSandboxId,
    name: w.name,
    state: w.state,
    labels: { ...w.labels },
    pid: w.pid,
  };
}

/** The PodSandbox wire object a runtime sends for `pod` (a network namespace entry only when netnsPath is set). */
export function fromNriPod(pod: NriPod): object {
  return {
    id: pod.id,
    name: pod.name,
    uid: pod.uid,
    namespace: pod.namespace,
    labels: pod.labels,
    annotations: pod.annotations,
    runtimeHandler: pod.runtimeHandler,
    pid: pod.pid,
    ips: pod.ips,
    ...(pod.netnsPath ? { linux: { namespaces: [{ type: 'network', path: pod.netnsPath }] } } : {}),
  };
}

export function fromNriContainer(c: NriContainer): object {
  return {
    id: c.id,
    podSandboxId: c.podSandboxId,
    name: c.name,
    state: c.state,
    labels: c.labels,
    pid: c.pid,
  };
}
