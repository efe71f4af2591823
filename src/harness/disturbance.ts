/**
 * Telling what another client did to a check's objects from what the check did itself. A check's pods
 * stopped or removed by someone else (a kubelet's orphan cleanup or its GC) make its verdict meaningless
 * either way, so the check ends in ERROR "disturbed", never in PASS or FAIL.
 *
 * The tracked CRI reports every call of the check here before it is sent, and every reply: so this knows
 * which objects the check made and which it asked to stop or remove. Against that:
 * - an NRI StopPodSandbox, RemovePodSandbox or RemoveContainer event for an object the check made and never
 *   asked to end can only come from another client's call (always on: it cannot mistake the runtime for one);
 * - beside a known other client (--beside-kubelet), also a listing that shows such a pod no longer READY or
 *   gone, and a NOT_FOUND for such an object. Without one these could be the runtime's own doing, which is
 *   for the check to judge, so they count only when someone else is known to be there. There a READY pod
 *   that carries the check's label counts as the check's own even when no reply named it: a timed-out
 *   RunPodSandbox builds a pod whose id the check never learns, and a kubelet stops that one too. The
 *   price: a runtime that stops or removes such a build by itself is taken for the other client, which
 *   costs only a verdict (ERROR), never a wrong one.
 */
import type { CriMethod } from '../cri/types.js';
import type { NriEventRecord } from '../nri/types.js';
import { CHECK_LABEL } from './labels.js';

/** A pod as the run-wide listing shows it (the CRI's PodSandbox, or as much of it as a test gives). */
export interface ListedPod {
  id: string;
  state: string;
  labels?: Record<string, string>;
  metadata?: { name?: string };
}

export interface Disturbance {
  /** "pod cc-idem-01-a-1f2e3d4c" or "container workload (in pod ...)". */
  object: string;
  /** A NOT_FOUND tells only that the object is no longer usable: 'stopped or removed'. */
  action: 'stopped' | 'removed' | 'stopped or removed';
  at: Date;
  /** How it was seen: "an NRI StopPodSandbox event", "ListPodSandbox", "a NOT_FOUND from PodSandboxStatus". */
  seenBy: string;
}

export function describeDisturbance(d: Disturbance): string {
  const time = d.at.toISOString().slice(11, 23);
  return `disturbed: ${d.object} was ${d.action} at ${time} by another client (a kubelet?), seen by ${d.seenBy}`;
}

const ENDING_METHODS: ReadonlySet<string> = new Set([
  'StopPodSandbox',
  'RemovePodSandbox',
  'StopContainer',
  'RemoveContainer',
]);

/** Calls that name only an existing object: their NOT_FOUND means the object is gone. */
const BY_ID_METHODS: ReadonlySet<string> = new Set([
  'PodSandboxStatus',
  'ContainerStatus',
  'StartContainer',
  'UpdateContainerResources',
  'ContainerStats',
  'PodSandboxStats',
  'ExecSync',
]);

export interface CheckObjectsOptions {
  /** Another client is known to drive the runtime: state changes and NOT_FOUND count too. */
  besideAnotherClient: boolean;
  /** The check's id, as its objects' check label carries it: listed pods with it are the check's. */
  checkId?: string;
  onDisturbed: (d: Disturbance) => void;
}

/** One check's objects, what it asked of them, and the first disturbance seen. */
export class CheckObjects {
  private readonly pods = new Map<string, { name: string; learnedAt: number }>();
  private readonly containers = new Map<string, { name: string; podId: string; learnedAt: number }>();
  private readonly ended = new Set<string>();
  private found: Disturbance | undefined;
  /** While the check's own cleanup sweeps its label, and until a listing asked after it: no adopting. */
  private sweeping = false;
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly opts: CheckObjectsOptions) {}

  get disturbance(): Disturbance | undefined {
    return this.found;
  }

  /** Before a call goes out: a Stop or Remove marks its object as ended by the check. */
  sending(method: CriMethod, request: unknown): void {
    if (!ENDING_METHODS.has(method)) return;
    const id = idOf(request);
    if (id) this.ended.add(id);
  }

  /** The check's cleanup is about to end everything it made so far. */
  endingAll(): void {
    for (const id of [...this.pods.keys(), ...this.containers.keys()]) this.ended.add(id);
    this.sweeping = true;
  }

  /** The cleanup's sweep is over: pods listed from now on with the check's label are new ones. */
  sweepDone(): void {
    this.sweeping = false;
    this.sweptAt = performance.now();
  }

  replied(method: CriMethod, request: unknown, reply: unknown): void {
    const r = request as { config?: { metadata?: { name?: string } }; podSandboxId?: string };
    const name = r.config?.metadata?.name ?? '';
    if (method === 'RunPodSandbox') {
      const id = (reply as { podSandboxId?: string }).podSandboxId;
      if (id) this.pods.set(id, { name, learnedAt: performance.now() });
    }
    if (method === 'CreateContainer') {
      const id = (reply as { containerId?: string }).containerId;
      if (id) this.containers.set(id, { name, podId: r.podSandboxId ?? '', learnedAt: performance.now() });
    }
  }

  /** A NOT_FOUND for an object the check made and never ended: someone removed it. */
  failed(method: CriMethod, request: unknown, statusName: string): void {
    // CreateContainer's NOT_FOUND may name its image; the calls that end an object say nothing of another.
    if (!this.opts.besideAnotherClient || statusName !== 'NOT_FOUND' || !BY_ID_METHODS.has(method)) return;
    const id = idOf(request);
    if (id && this.isLive(id)) this.report(id, 'stopped or removed', `a NOT_FOUND from ${method}`);
  }

  nriEvent(e: Pick<NriEventRecord, 'event' | 'pod' | 'container'>): void {
    if (e.event === 'StopPodSandbox' || e.event === 'RemovePodSandbox') {
      if (this.isLive(e.pod.id))
        this.report(
          e.pod.id,
          e.event === 'StopPodSandbox' ? 'stopped' : 'removed',
          `an NRI ${e.event} event`,
        );
    }
    if (e.event === 'RemoveContainer' && e.container && this.isLive(e.container.id))
      this.report(e.container.id, 'removed', 'an NRI RemoveContainer event');
  }

  /**
   * A listing of the run's objects, asked for at `askedAt` (performance.now()): a pod of the check's that is
   * no longer READY, or gone. Only objects the check knew before the listing was asked for are judged: one
   * made while it was on its way would look gone.
   */
  listed(
    pods: readonly ListedPod[],
    containerIds: ReadonlySet<string>,
    askedAt: number,
    exitedContainerIds: ReadonlySet<string> = new Set(),
  ): void {
    if (!this.opts.besideAnotherClient) return;
    const states = new Map(pods.map((p) => [p.id, p.state]));
    this.adoptUnnamed(pods, askedAt);
    for (const [id, pod] of this.pods) {
      if (pod.learnedAt >= askedAt || !this.isLive(id)) continue;
      const state = states.get(id);
      if (state === undefined) this.report(id, 'removed', 'ListPodSandbox');
      else if (state !== 'SANDBOX_READY') this.report(id, 'stopped', 'ListPodSandbox');
    }
    for (const [id, c] of this.containers)
      if (c.learnedAt < askedAt && this.isLive(id)) {
        // A kubelet stops an orphan's containers first (1 s grace) and its sandbox later: the check may end
        // the sandbox itself in between, so the exited container is the only sign.
        if (!containerIds.has(id)) this.report(id, 'removed', 'ListContainers');
        else if (exitedContainerIds.has(id)) this.report(id, 'stopped', 'ListContainers');
      }
  }

  /**
   * READY pods with the check's label that no reply named (a timed-out build): the check's own from this
   * listing on, judged by the next one. Never during or before the check's own sweep, which removes them.
   */
  private adoptUnnamed(pods: readonly ListedPod[], askedAt: number): void {
    const { checkId } = this.opts;
    if (!checkId || this.sweeping || askedAt <= this.sweptAt) return;
    for (const p of pods) {
      const mine = p.labels?.[CHECK_LABEL] === checkId;
      if (mine && p.state === 'SANDBOX_READY' && !this.pods.has(p.id) && !this.ended.has(p.id))
        this.pods.set(p.id, { name: p.metadata?.name ?? p.id, learnedAt: askedAt });
    }
  }

  /** Made by the check, and neither it nor (for a container) its pod asked to end. */
  private isLive(id: string): boolean {
    if (this.ended.has(id)) return false;
    if (this.pods.has(id)) return true;
    const c = this.containers.get(id);
    return c !== undefined && !this.ended.has(c.podId);
  }

  private report(id: string, action: Disturbance['action'], seenBy: string): void {
    if (this.found) return;
    const c = this.containers.get(id);
    const podName = (podId: string) => this.pods.get(podId)?.name ?? podId;
    const object = c ? `container ${c.name} of pod ${podName(c.podId)}` : `pod ${podName(id)}`;
    this.found = { object, action, at: new Date(), seenBy };
    this.opts.onDisturbed(this.found);
  }
}

function idOf(request: unknown): string | undefined {
  const r = request as { podSandboxId?: string; containerId?: string } | null;
  return r?.containerId || r?.podSandboxId || undefined;
}

/** How often the run's objects are listed beside another client: well inside a kubelet's 2 s housekeeping. */
const LIST_EVERY_MS = 250;

/**
 * Beside another client, lists the run's objects a few times a second and shows each listing to every
 * running check. One poller per run, so the load does not grow with --parallel.
 */
export class DisturbanceMonitor {
  private readonly checks = new Set<CheckObjects>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly list: () => Promise<{
      pods: ListedPod[];
      containerIds: Set<string>;
      exitedContainerIds: Set<string>;
    }>,
  ) {}

  watch(objects: CheckObjects): () => void {
    this.checks.add(objects);
    if (!this.timer && !this.stopped) this.schedule();
    return () => this.checks.delete(objects);
  }

  /**
   * A check's last look before it is judged: one listing, or for `settleMs` when the check failed. A
   * kubelet stops an orphan's containers first, with a 1 s grace, and its sandbox after that: a check can
   * fail on a killed container while its sandbox still looks READY.
   */
  async lastLook(objects: CheckObjects, settleMs = 0): Promise<void> {
    const endAt = performance.now() + settleMs;
    for (;;) {
      const askedAt = performance.now();
      const listing = await this.list().catch(() => undefined);
      if (listing) objects.listed(listing.pods, listing.containerIds, askedAt, listing.exitedContainerIds);
      if (objects.disturbance || performance.now() >= endAt) return;
      await new Promise((resolve) => setTimeout(resolve, LIST_EVERY_MS));
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.tick(), LIST_EVERY_MS);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const watching = [...this.checks];
    const askedAt = performance.now();
    try {
      const listing = await this.list();
      for (const objects of watching)
        if (this.checks.has(objects))
          objects.listed(listing.pods, listing.containerIds, askedAt, listing.exitedContainerIds);
    } catch {
      // A listing that failed shows nothing; the next one may.
    }
    if (!this.stopped) this.schedule();
  }
}
