/**
 * Doctor's proof pod beside another client: when the proof fails because someone else stopped its pod (a
 * kubelet's orphan cleanup does within seconds), that is no verdict on the injector. Doctor never stops
 * its pod before the proof is over, except where it says so, so a stopped pod it did not stop, or a
 * NOT_FOUND for it, is another client's doing.
 */
import type { CallRecord, CriClient } from '../cri/client.js';
import { CriCallError } from '../cri/errors.js';
import { describeDisturbance } from './disturbance.js';
import { RUN_LABEL } from './labels.js';

export class ProofPodWatch {
  private readonly ended = new Set<string>();

  /** The client the proof uses: every pod it stops or removes is remembered. */
  observe(client: CriClient): CriClient {
    return client.withObserver((r: CallRecord) => {
      const id = (r.request as { podSandboxId?: string }).podSandboxId;
      if (id && (r.method === 'StopPodSandbox' || r.method === 'RemovePodSandbox')) this.ended.add(id);
    });
  }

  /** Why the proof failed if another client disturbed it, else undefined. */
  async disturbance(client: CriClient, runId: string, failure: unknown): Promise<string | undefined> {
    const at = new Date();
    const { items } = await client
      .call('ListPodSandbox', { filter: { labelSelector: { [RUN_LABEL]: runId } } }, { deadlineMs: 5_000 })
      .catch(() => ({ items: [] }));
    const stopped = items.find((p) => p.state !== 'SANDBOX_READY' && !this.ended.has(p.id));
    if (stopped) {
      return describeDisturbance({
        object: `doctor's proof pod ${stopped.metadata.name}`,
        action: 'stopped',
        at,
        seenBy: 'ListPodSandbox',
      });
    }
    if (failure instanceof CriCallError && failure.statusName === 'NOT_FOUND')
      return describeDisturbance({
        object: "doctor's proof pod",
        action: 'removed',
        at,
        seenBy: `a NOT_FOUND from ${failure.method}`,
      });
    return undefined;
  }
}
