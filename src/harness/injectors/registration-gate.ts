/**
 * Keeps one check's NRI plugin registration and another check's RemovePodSandbox apart. containerd 2.1
 * takes the plugin-sync read lock in RemovePodSandbox and again in the RemoveContainer it calls for each
 * container; a registration that queues for the write side in between deadlocks the runtime (TEAR-16).
 * Checks that share the runtime must not cause that by how they happen to be scheduled, so:
 * - a registration waits until no other check has a RemovePodSandbox in flight;
 * - a RemovePodSandbox waits while another check's registration waits or is under way (a registration
 *   is never starved by a stream of removals).
 * A check's own calls never wait for each other: TEAR-16 registers during its own removal on purpose. The
 * trials of a check that run side by side are kept apart like checks (each has a key of its own), since
 * nothing orders one trial's registration against another's removal. It sees only the run's own removals:
 * beside a kubelet, whose removals it cannot see, NRI checks skip on the runtimes where that pair deadlocks
 * (plugin-sync-deadlock.ts).
 */
import type { CallGate } from '../../cri/client.js';

type Counts = Map<string, number>;

/** A call waiting for the other side to change, and the signal that ends its wait. */
interface Waiter {
  resolve(): void;
  reject(reason: unknown): void;
  signal: AbortSignal | undefined;
}

export class RegistrationGate {
  private readonly removing: Counts = new Map();
  private readonly registering: Counts = new Map();
  private waiting: Waiter[] = [];
  /**
   * Signals with the gate's one abort listener. Every removal of the run waits on the run's signal, so a
   * listener per waiter would pile up on it (Node warns past ten) while dozens of removals wait out one
   * registration.
   */
  private readonly watched = new WeakSet<AbortSignal>();

  /**
   * The gate for one check's CRI calls: its RemovePodSandbox calls wait as above, the rest go at once.
   * `key` names the caller when the call is made (the check, or the trial of it the call comes from).
   */
  forCalls(key: string | (() => string), signal: AbortSignal): CallGate {
    const keyNow = typeof key === 'string' ? () => key : key;
    return (method, send) => (method === 'RemovePodSandbox' ? this.removal(keyNow(), send, signal) : send());
  }

  // Each test of the other side and the count of this side happen with no await between them, so a
  // removal and a registration that arrive together cannot both go.
  async removal<T>(checkId: string, remove: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    while (othersIn(this.registering, checkId)) await this.nextChange(signal);
    return this.holding(this.removing, checkId, remove);
  }

  registration<T>(checkId: string, register: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.holding(this.registering, checkId, async () => {
      while (othersIn(this.removing, checkId)) await this.nextChange(signal);
      return register();
    });
  }

  private async holding<T>(counts: Counts, checkId: string, work: () => Promise<T>): Promise<T> {
    counts.set(checkId, (counts.get(checkId) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const left = (counts.get(checkId) ?? 1) - 1;
      if (left === 0) counts.delete(checkId);
      else counts.set(checkId, left);
      this.wake();
    }
  }

  private nextChange(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (signal && !this.watched.has(signal)) {
      this.watched.add(signal);
      signal.addEventListener('abort', () => this.abandon(signal), { once: true });
    }
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ resolve, reject, signal });
    });
  }

  /** Ends the waits of every call waiting on this signal. */
  private abandon(signal: AbortSignal): void {
    const ended = this.waiting.filter((w) => w.signal === signal);
    this.waiting = this.waiting.filter((w) => w.signal !== signal);
    for (const w of ended) w.reject(signal.reason);
  }

  private wake(): void {
    const woken = this.waiting;
    this.waiting = [];
    for (const w of woken) w.resolve();
  }
}

function othersIn(counts: Counts, checkId: string): boolean {
  for (const id of counts.keys()) if (id !== checkId) return true;
  return false;
}
