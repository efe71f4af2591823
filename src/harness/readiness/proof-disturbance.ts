/**
 * Doctor's proof pod beside another client: when the proof fails because someone else stopped its pod (a
 * kubelet's orphan cleanup does within seconds), that is no verdict on the injector. Doctor never stops
 * its pod before the proof is over, except where it says so, so a stopped pod it did not stop, or a
 * NOT_FOUND for it, is another client's doing.
 */
import type { CallRecord, CriClient } from '../../cri/client.js';
import { CriCallError } from '../../cri/errors.js';
import { isOurPod, RUN_LABEL } from '../core/labels.js';
import { describeDisturbance } from '../neighbours/disturbance.js';

/** The kubelet's 1 s grace for an orphan's containers, and its sandbox stop after it. */
const SETTLE_MS = 2_500;
const LOOK_EVERY_MS = 250;

export class ProofPodWatch {
  private readonly ended = new Set<string>();

  /** The client the proof uses: every pod it stops or removes is remembered. */
  observe(client: CriClient): CriClient {
    return client.withObserver((r: CallRecord) => {
      const id = (r.request as { podSandboxId?: string }).podSandboxId;
      if (id && (r.method === 'StopPodSandbox' || r.method === 'RemovePodSandbox')) this.ended.add(id);
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
    settleMs = SETTLE_MS,
  ): Promise<string | undefined> {
    const endAt = Date.now() + settleMs;
    let stopped: { metadata: { name: string } } | undefined;
    for (;;) {
      const { items } = await client
        .call('ListPodSandbox', { filter: { labelSelector: { [RUN_LABEL]: runId } } }, { deadlineMs: 5_000 })
        .catch(() => ({ items: [] }));
      stopped = items.find((p) => isOurPod(p, runId) && p.state !== 'SANDBOX_READY' && !this.ended.has(p.id));
      if (stopped || Date.now() >= endAt) break;
      await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
    }
    const at = new Date();
    if (stopped) {
      return describeDisturbance({
        by: 'another client',
        object: `doctor's proof pod ${stopped.metadata.name}`,
        action: 'stopped',
        at,
        seenBy: 'ListPodSandbox',
      });
    }
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
}
