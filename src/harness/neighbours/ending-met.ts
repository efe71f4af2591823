/**
 * Beside a kubelet, a Stop or Remove of an object the check had already ended, failed by the runtime, is the
 * runtime's failure for the check to judge (IDEM-11), unless another client was ending the same object at
 * that moment. A kubelet's container GC removes the exited containers of pods it does not know, and
 * containerd fails a RemoveContainer that meets another one under way ("container is already in removing
 * state"). The sign of that meeting: the NRI event of the ending itself, heard after the check's failed call
 * went out. The check's own earlier ending sent its event before that, so it never counts.
 *
 * The price: a runtime that fails a repeated Remove and removes the object at a later call of the check's
 * own is taken for two clients meeting, which beside a kubelet costs a verdict (ERROR), never a wrong one.
 */
import type { CriMethod } from '../../cri/types.js';

/** What a call's ending does to the object, and the NRI event it sends. */
interface Ending {
  event: string;
  action: 'stopped' | 'removed';
}

const EVENT_OF: Partial<Record<CriMethod, Ending>> = {
  StopPodSandbox: { event: 'StopPodSandbox', action: 'stopped' },
  RemovePodSandbox: { event: 'RemovePodSandbox', action: 'removed' },
  RemoveContainer: { event: 'RemoveContainer', action: 'removed' },
};

export interface EndingMet {
  id: string;
  action: 'perhaps being stopped' | 'perhaps being removed';
  seenBy: string;
}

interface FailedEnding {
  method: CriMethod;
  ending: Ending;
  statusName: string;
  sentAt: number;
}

export class EndingsMet {
  /** When each Stop or Remove of an already ended object went out. */
  private readonly sentAt = new WeakMap<object, number>();
  /** The last NRI ending event heard for an ended object, by action and id. */
  private readonly heardAt = new Map<string, number>();
  /** Failed calls no event has explained yet, by action and id. */
  private readonly unexplained = new Map<string, FailedEnding>();

  constructor(private readonly onMet: (met: EndingMet) => void) {}

  sending(request: object): void {
    this.sentAt.set(request, performance.now());
  }

  /** A Stop or Remove of an object the check had already ended failed (not by its own deadline). */
  failed(method: CriMethod, request: object, id: string, statusName: string): void {
    const ending = EVENT_OF[method];
    if (!ending) return;
    const key = `${ending.action} ${id}`;
    const failed = { method, ending, statusName, sentAt: this.sentAt.get(request) ?? performance.now() };
    const heard = this.heardAt.get(key);
    if (heard !== undefined && heard >= failed.sentAt) this.met(id, failed);
    else if (!this.unexplained.has(key)) this.unexplained.set(key, failed);
  }

  /** An NRI teardown event of an object the check had already ended. */
  heard(id: string, action: 'stopped' | 'removed'): void {
    const key = `${action} ${id}`;
    this.heardAt.set(key, performance.now());
    const failed = this.unexplained.get(key);
    if (!failed) return;
    this.unexplained.delete(key);
    this.met(id, failed);
  }

  private met(id: string, failed: FailedEnding): void {
    const { ending } = failed;
    this.onMet({
      id,
      action: ending.action === 'stopped' ? 'perhaps being stopped' : 'perhaps being removed',
      seenBy: `its own ${failed.method} failing with ${failed.statusName}, and an NRI ${ending.event} event after it went out: another client's ${ending.action === 'stopped' ? 'stop' : 'removal'} was under way`,
    });
  }
}
