/**
 * What one check made and which of it the check asked to end: the ledger CheckObjects (disturbance.ts)
 * judges every event, listing and failure against.
 */
import type { CriMethod } from '../../cri/types.js';

export class OwnObjects {
  readonly pods = new Map<string, { name: string; learnedAt: number }>();
  readonly containers = new Map<string, { name: string; podId: string; learnedAt: number }>();
  /** Containers whose workload ends by itself, as the check means it to (HOOK-09). */
  readonly meantToExit = new Set<string>();
  readonly ended = new Set<string>();

  /** What a reply of the check's made (a pod or a container), now known as the check's: its id. */
  learn(method: CriMethod, request: unknown, reply: unknown): string | undefined {
    const r = request as { config?: { metadata?: { name?: string } }; podSandboxId?: string };
    const name = r.config?.metadata?.name ?? '';
    let made: string | undefined;
    if (method === 'RunPodSandbox') {
      made = (reply as { podSandboxId?: string }).podSandboxId;
      if (made) this.pods.set(made, { name, learnedAt: performance.now() });
    }
    if (method === 'CreateContainer') {
      made = (reply as { containerId?: string }).containerId;
      if (made)
        this.containers.set(made, { name, podId: r.podSandboxId ?? '', learnedAt: performance.now() });
    }
    return made;
  }

  /** Made by the check, and neither it nor (for a container) its pod asked to end. */
  isLive(id: string): boolean {
    if (this.ended.has(id)) return false;
    if (this.pods.has(id)) return true;
    const c = this.containers.get(id);
    return c !== undefined && !this.ended.has(c.podId);
  }

  /** The containers of the pod the check made that are still live. */
  liveContainersOf(podId: string): string[] {
    return [...this.containers].filter(([id, c]) => c.podId === podId && this.isLive(id)).map(([id]) => id);
  }

  knows(id: string): boolean {
    return this.pods.has(id) || this.containers.has(id) || this.ended.has(id);
  }

  /**
   * The check is about to end everything it made so far, or, with `namePrefix`, everything of one trial (the
   * pods whose names start with it, and their containers).
   */
  endAll(namePrefix?: string): void {
    const pods = [...this.pods].filter(([, p]) => namePrefix === undefined || p.name.startsWith(namePrefix));
    const podIds = new Set(pods.map(([id]) => id));
    for (const id of podIds) this.ended.add(id);
    for (const [id, c] of this.containers)
      if (namePrefix === undefined || podIds.has(c.podId)) this.ended.add(id);
  }

  /** The object as a report names it: "container <name> of pod <name>" or "pod <name>". */
  describe(id: string): string {
    const c = this.containers.get(id);
    const podName = (podId: string) => this.pods.get(podId)?.name ?? podId;
    return c ? `container ${c.name} of pod ${podName(c.podId)}` : `pod ${podName(id)}`;
  }
}
