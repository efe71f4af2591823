/**
 * The marks every object of a run carries, and the one test of whether an object is cri-conform's. Cleanup,
 * every sweep and the disturbance logic act on objects that pass it and on nothing else.
 */
import { randomBytes } from 'node:crypto';

export const RUN_LABEL = 'cri-conform.io/run';
export const CHECK_LABEL = 'cri-conform.io/check';
/** Set on the objects of one trial of a check: the trial's listings, events and cleanup see only them. */
export const TRIAL_LABEL = 'cri-conform.io/trial';
export const NAME_PREFIX = 'cc-';
export const POD_NAMESPACE = 'cri-conform';
/** The kubelet's labels for a pod's name and namespace, which the run's pods and containers carry too. */
const KUBE_POD_NAME = 'io.kubernetes.pod.name';
const KUBE_POD_NAMESPACE = 'io.kubernetes.pod.namespace';

export function newRunId(): string {
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 12);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export function uniqueToken(): string {
  return randomBytes(4).toString('hex');
}

export function labelsFor(runId: string, checkId: string): Record<string, string> {
  return { [RUN_LABEL]: runId, [CHECK_LABEL]: checkId };
}

/** A pod as the CRI lists it, or as much of it as says whose it is. */
export interface MarkedPod {
  labels?: Record<string, string> | undefined;
  metadata?: { name?: string; namespace?: string } | undefined;
}

/**
 * cri-conform's pod (of run `runId` when given): the run label, the pod namespace `cri-conform` and the
 * `cc-` name prefix, all three. One is never enough: the kubelet copies a Kubernetes pod's labels onto its
 * sandbox, so anyone may label a workload `cri-conform.io/run`.
 */
export function isOurPod(pod: MarkedPod, runId?: string): boolean {
  const run = pod.labels?.[RUN_LABEL];
  return (
    run !== undefined &&
    (runId === undefined || run === runId) &&
    pod.metadata?.namespace === POD_NAMESPACE &&
    (pod.metadata?.name ?? '').startsWith(NAME_PREFIX)
  );
}

/** cri-conform's container: the run label of its own, in a sandbox that is cri-conform's (`ourPodIds`). */
export function isOurContainer(
  container: { labels?: Record<string, string> | undefined; podSandboxId: string },
  ourPodIds: ReadonlySet<string>,
  runId?: string,
): boolean {
  const run = container.labels?.[RUN_LABEL];
  return run !== undefined && (runId === undefined || run === runId) && ourPodIds.has(container.podSandboxId);
}

/**
 * For records that carry labels only (containerd's own container records): the run label, and the
 * kubelet's pod namespace and name labels that the run sets on its sandboxes and containers alike.
 */
export function hasOurMarks(labels: Record<string, string> | undefined, runId?: string): boolean {
  return isOurPod(
    {
      labels,
      metadata: { name: labels?.[KUBE_POD_NAME] ?? '', namespace: labels?.[KUBE_POD_NAMESPACE] ?? '' },
    },
    runId,
  );
}
