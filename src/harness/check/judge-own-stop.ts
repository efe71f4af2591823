/**
 * Beside a kubelet, after a StopContainer or StopPodSandbox of the check's own answered OK: when did the
 * containers it stopped exit (own-stop.ts)? Not awaited by the call, so its latency stays the runtime's; the
 * verdict waits for it (CheckObjects.lookingAt).
 */
import type { ContainerStatus, CriRequest } from '../../cri/types.js';
import type { CheckObjects } from '../neighbours/disturbance.js';
import type { CallOpts } from './context.js';

/** How an own stop that answered OK went out and came back. */
export interface AnsweredCall {
  sentAtMs: number;
  latencyMs: number;
  opts: CallOpts;
}

/** An own stop to judge: the call, and the request that went out (the very object, for CheckObjects). */
export type OwnStop =
  | { method: 'StopContainer'; request: CriRequest<'StopContainer'> }
  | { method: 'StopPodSandbox'; request: CriRequest<'StopPodSandbox'> };

export async function judgeOwnStop(
  containerStatus: (containerId: string) => Promise<ContainerStatus>,
  objects: CheckObjects,
  stop: OwnStop,
  answered: AnsweredCall,
): Promise<void> {
  const statusOf = (id: string) => containerStatus(id).catch(() => undefined);
  if (stop.method === 'StopPodSandbox') {
    const judged = objects.containersLiveAt(stop.request).map(async (id) => {
      const status = await statusOf(id);
      if (status) objects.podStopAnswered(id, answered.sentAtMs, finishedAtMs(status));
    });
    await Promise.all(judged);
    return;
  }
  const { containerId, timeout } = stop.request;
  const status = await statusOf(containerId);
  if (!status) return;
  objects.stopAnswered(
    containerId,
    {
      sentAtMs: answered.sentAtMs,
      graceMs: Number(timeout) * 1_000,
      latencyMs: answered.latencyMs,
      finishedAtMs: finishedAtMs(status),
      ignoresTerm: answered.opts.ignoresTerm === true,
    },
    status.state,
  );
}

/** The status's finishedAt in wall-clock ms; undefined when it gives none. */
function finishedAtMs(status: ContainerStatus): number | undefined {
  const ns = BigInt(status.finishedAt || '0');
  return ns > 0n ? Number(ns / 1_000_000n) : undefined;
}
