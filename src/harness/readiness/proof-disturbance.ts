/**
 * Doctor's proof pod beside another client: when the proof fails because someone else stopped its pod (a
 * kubelet's orphan cleanup does within seconds), that is no verdict on the injector. Doctor never stops
 * its pod before the proof is over, except where it says so, so a stopped pod it did not stop, or a
 * NOT_FOUND for it, is another client's doing. So is an EXITED container that doctor neither started nor
 * stopped and whose own start did not fail (reason StartError): a created container ends only when
 * something stops it, and a kubelet stops an orphan's containers before its sandbox, which may then stay
 * READY for seconds while the kubelet is busy.
 */
import type { CallRecord, CriClient } from '../../cri/client.js';
import { CriCallError } from '../../cri/errors.js';
import { isOurPod, RUN_LABEL } from '../core/labels.js';
import { describeDisturbance, KUBELET_KILL_SHOWS_MS } from '../neighbours/disturbance.js';

const LOOK_EVERY_MS = 250;

export class ProofPodWatch {
  private readonly ended = new Set<string>();
  /** Containers the proof started or ended itself: their exits are its own doing. */
  private readonly ownContainers = new Set<string>();

  /** The client the proof uses: every pod it stops or removes, and every container it runs, is remembered. */
  observe(client: CriClient): CriClient {
    return client.alsoObserved((r: CallRecord) => {
      const request = r.request as { podSandboxId?: string; containerId?: string };
      const pod = request.podSandboxId;
      if (pod && (r.method === 'StopPodSandbox' || r.method === 'RemovePodSandbox')) this.ended.add(pod);
      const ends = r.method === 'StartContainer' ? r.code === 0 : OWN_CONTAINER_ENDS.includes(r.method);
      if (request.containerId && ends) this.ownContainers.add(request.containerId);
    });
  }

  /**
   * Why the proof failed if another client disturbed it, else undefined. A kubelet stops a pod's
   * containers first, with a grace period, and the sandbox after: the proof may fail on a dead container
   * while its sandbox is still READY, so the pod is watched for `settleMs` before the failure is the
   * injector's.
   */
  async disturbance(
    client: CriClient,
    runId: string,
    failure: unknown,
    settleMs = KUBELET_KILL_SHOWS_MS,
  ): Promise<string | undefined> {
    const endAt = Date.now() + settleMs;
    let stopped: Sighting | undefined;
    for (;;) {
      stopped = (await this.stoppedPod(client, runId)) ?? (await this.stoppedContainer(client, runId));
      if (stopped || Date.now() >= endAt) break;
      await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
    }
    const at = new Date();
    if (stopped) return describeDisturbance({ by: 'another client', action: 'stopped', at, ...stopped });
    if (failure instanceof CriCallError && failure.statusName === 'NOT_FOUND')
      return describeDisturbance({
        by: 'another client',
        object: "doctor's proof pod",
        action: 'removed',
        at,
        seenBy: `a NOT_FOUND from ${failure.method}`,
      });
    return undefined;
  }

  private async stoppedPod(client: CriClient, runId: string): Promise<Sighting | undefined> {
    const filter = runFilter(runId);
    const { items } = await client
      .call('ListPodSandbox', filter, { deadlineMs: LIST_WITHIN_MS })
      .catch(() => ({ items: [] }));
    const pod = items.find((p) => isOurPod(p, runId) && p.state !== 'SANDBOX_READY' && !this.ended.has(p.id));
    return pod && { object: `doctor's proof pod ${pod.metadata.name}`, seenBy: 'ListPodSandbox' };
  }

  private async stoppedContainer(client: CriClient, runId: string): Promise<Sighting | undefined> {
    const { containers } = await client
      .call('ListContainers', runFilter(runId), { deadlineMs: LIST_WITHIN_MS })
      .catch(() => ({ containers: [] }));
    const exited = containers.filter(
      (c) =>
        c.state === 'CONTAINER_EXITED' && !this.ownContainers.has(c.id) && !this.ended.has(c.podSandboxId),
    );
    for (const c of exited) {
      const { status } = await client
        .call('ContainerStatus', { containerId: c.id, verbose: false }, { deadlineMs: LIST_WITHIN_MS })
        .catch(() => ({ status: null }));
      if (status && status.reason !== START_ERROR)
        return { object: `doctor's proof container ${c.metadata.name}`, seenBy: 'ListContainers' };
    }
    return undefined;
  }
}

/** What another client was seen to stop, and how. */
interface Sighting {
  object: string;
  seenBy: string;
}

const runFilter = (runId: string) => ({ filter: { labelSelector: { [RUN_LABEL]: runId } } });

/** Calls after which a proof container's exit is the proof's own doing (a start too, when it succeeded). */
const OWN_CONTAINER_ENDS: readonly string[] = ['StopContainer', 'RemoveContainer'];
/** The reason containerd gives a container whose start failed: the runtime's own exit, not a stop. */
const START_ERROR = 'StartError';
const LIST_WITHIN_MS = 5_000;
