/**
 * Telling what another client did to a check's objects from what the check did itself. A check's pods
 * stopped or removed by someone else (a kubelet's orphan cleanup or its GC) make its verdict meaningless
 * either way, so the check ends in ERROR "disturbed", never in PASS or FAIL.
 *
 * The tracked CRI reports every call of the check here before it is sent, and every reply: so this knows
 * which objects the check made and which it asked to stop or remove. Against that:
 * - an NRI StopPodSandbox, RemovePodSandbox or RemoveContainer event for an object the check made and never
 *   asked to end can only come from another client's call (always on: it cannot mistake the runtime for one);
 * - beside a known other client (--beside-kubelet), also: a listing that shows such a pod no longer READY
 *   or gone, or such a container exited or gone; an NRI StopContainer event for such a container; a
 *   NOT_FOUND for such an object. Without one these could be the runtime's own doing, which is for the check
 *   to judge (containerd shows a container that exits by itself as exited, and sends StopContainer for it),
 *   so they count only when someone else is known to be there. There a READY pod that carries the check's
 *   label counts as the check's own even when no reply named it: a timed-out RunPodSandbox builds a pod
 *   whose id the check never learns, and a kubelet stops that one too. The price: a runtime that stops or
 *   removes such a build by itself, or a container of the check that exits by itself, is taken for the
 *   other client, which costs only a verdict (ERROR), never a wrong one.
 * - beside a known other client, also a Stop or Remove of the check's own that the runtime fails: another
 *   client may have been ending the same object at that moment, which nothing shows.
 * - a StartContainer of the check that fails ends its container as the check's own doing: containerd stops
 *   it, and its StopContainer event may come before the reply.
 * - beside a known other client, the tracked CRI takes one more look right before each Stop or Remove of
 *   the check's own goes out: once sent, that call ends the object, and would hide a stop someone else made
 *   since the last periodic listing.
 * A check that judges a scenario another check ran (t.shared) is disturbed when that scenario was.
 */
import type { CriMethod } from '../cri/types.js';
import type { NriEventRecord } from '../nri/types.js';
import { CHECK_LABEL, isOurPod } from './labels.js';

/** A pod as the run-wide listing shows it (the CRI's PodSandbox, or as much of it as a test gives). */
export interface ListedPod {
  id: string;
  state: string;
  labels?: Record<string, string>;
  metadata?: { name?: string; namespace?: string };
}

export interface Disturbance {
  /** "pod cc-idem-01-a-1f2e3d4c" or "container workload (in pod ...)". */
  object: string;
  /**
   * A NOT_FOUND tells only that the object is no longer usable: 'stopped or removed'. A Stop or Remove of
   * the check's own that failed tells only that another client may have been ending it at the same time.
   */
  action: 'stopped' | 'removed' | 'stopped or removed' | 'perhaps being stopped' | 'perhaps being removed';
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

/** Whether the call stops or removes the object it names. */
export function endsAnObject(method: CriMethod): boolean {
  return ENDING_METHODS.has(method);
}

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
  /** Containers whose StartContainer is on its way, and whether an NRI StopContainer came meanwhile. */
  private readonly starting = new Map<string, { stopSeenAt?: Date }>();
  private found: Disturbance | undefined;
  private readonly scenarios: { by: string; disturbance: () => Disturbance | undefined }[] = [];
  /** While the check's own cleanup sweeps its label, and until a listing asked after it: no adopting. */
  private sweeping = false;
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly opts: CheckObjectsOptions) {}

  /** The first disturbance seen of the check's own objects, else of a scenario another check ran for it. */
  get disturbance(): Disturbance | undefined {
    if (this.found) return this.found;
    for (const { by, disturbance } of this.scenarios) {
      const d = disturbance();
      if (d) return { ...d, object: `${d.object} (of the scenario ${by} ran)` };
    }
    return undefined;
  }

  /** The check judges a scenario another check ran: another client's doing there is this check's too. */
  readsScenarioOf(by: string, disturbance: () => Disturbance | undefined): void {
    this.scenarios.push({ by, disturbance });
  }

  /** Before a call goes out: a Stop or Remove marks its object as ended by the check. */
  sending(method: CriMethod, request: unknown): void {
    const id = idOf(request);
    if (!id) return;
    if (method === 'StartContainer') this.starting.set(id, {});
    if (ENDING_METHODS.has(method)) this.ended.add(id);
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
    if (method === 'StartContainer') this.started(idOf(request) ?? '', 'ok');
  }

  /**
   * A call of the check that failed. A NOT_FOUND for an object the check made and never ended: someone
   * removed it. A Stop or Remove of the check's own that the runtime failed: another client may have been
   * ending the same object at that moment (a kubelet stops every pod it does not know, and two stops of one
   * pod at once is a race some runtimes lose, see IDEM-15), which no listing or event can tell apart.
   */
  failed(method: CriMethod, request: unknown, statusName: string): void {
    const id = idOf(request);
    if (method === 'StartContainer') this.started(id ?? '', statusName === 'NOT_FOUND' ? 'gone' : 'failed');
    if (!this.opts.besideAnotherClient || !id) return;
    // CreateContainer's NOT_FOUND may name its image.
    if (statusName === 'NOT_FOUND' && BY_ID_METHODS.has(method) && this.isLive(id))
      this.report(id, 'stopped or removed', `a NOT_FOUND from ${method}`);
    // A deadline or a cancel is the check's own giving up, not the runtime's failure.
    const gaveUp = statusName === 'DEADLINE_EXCEEDED' || statusName === 'CANCELLED';
    if (ENDING_METHODS.has(method) && !gaveUp && (this.pods.has(id) || this.containers.has(id))) {
      const action = method.startsWith('Stop') ? 'perhaps being stopped' : 'perhaps being removed';
      this.report(id, action, `its own ${method} failing with ${statusName}`);
    }
  }

  /**
   * A StartContainer of the check settled. One that failed ends its container as the check's own doing
   * (containerd stops it and sends StopContainer, maybe before the reply); after one that succeeded, a
   * StopContainer that came meanwhile is judged now. A NOT_FOUND is judged as any other.
   */
  private started(id: string, outcome: 'ok' | 'failed' | 'gone'): void {
    const start = this.starting.get(id);
    this.starting.delete(id);
    if (outcome === 'failed') this.ended.add(id);
    else if (outcome === 'ok' && start?.stopSeenAt && this.isLive(id))
      this.report(id, 'stopped', 'an NRI StopContainer event', start.stopSeenAt);
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
    // containerd also sends it when a container exits by itself: only beside another client.
    if (e.event === 'StopContainer' && e.container && this.opts.besideAnotherClient) {
      const start = this.starting.get(e.container.id);
      if (start) start.stopSeenAt ??= new Date();
      else if (this.isLive(e.container.id))
        this.report(e.container.id, 'stopped', 'an NRI StopContainer event');
    }
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
        else if (exitedContainerIds.has(id) && !this.starting.has(id))
          this.report(id, 'stopped', 'ListContainers');
      }
  }

  /**
   * READY pods of the run with the check's label that no reply named (a timed-out build): the check's own
   * from this listing on, judged by the next one. Never during or before the check's own sweep, which removes
   * them. A pod is the run's only with all its marks (labels.ts), never by the label alone.
   */
  private adoptUnnamed(pods: readonly ListedPod[], askedAt: number): void {
    const { checkId } = this.opts;
    if (!checkId || this.sweeping || askedAt <= this.sweptAt) return;
    for (const p of pods) {
      const mine = isOurPod(p) && p.labels?.[CHECK_LABEL] === checkId;
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

  private report(id: string, action: Disturbance['action'], seenBy: string, at = new Date()): void {
    if (this.found) return;
    const c = this.containers.get(id);
    const podName = (podId: string) => this.pods.get(podId)?.name ?? podId;
    const object = c ? `container ${c.name} of pod ${podName(c.podId)}` : `pod ${podName(id)}`;
    this.found = { object, action, at, seenBy };
    this.opts.onDisturbed(this.found);
  }
}

function idOf(request: unknown): string | undefined {
  const r = request as { podSandboxId?: string; containerId?: string } | null;
  return r?.containerId || r?.podSandboxId || undefined;
}

/** The run's objects as one listing shows them. */
interface Listing {
  pods: ListedPod[];
  containerIds: Set<string>;
  exitedContainerIds: Set<string>;
}

/** Shows a check one listing of the run's objects, asked for at `askedAt`. */
function show(objects: CheckObjects, listing: Listing, askedAt: number): void {
  objects.listed(listing.pods, listing.containerIds, askedAt, listing.exitedContainerIds);
}

/** How often the run's objects are listed beside another client: well inside a kubelet's 2 s housekeeping. */
const LIST_EVERY_MS = 250;
/** How long a check's own Stop or Remove waits for the look before it: a slow listing only goes unused. */
const LOOK_BEFORE_ENDING_MS = 1_000;

/**
 * Beside another client, lists the run's objects a few times a second and shows each listing to every
 * running check. One poller per run, so the load does not grow with --parallel.
 */
export class DisturbanceMonitor {
  private readonly checks = new Set<CheckObjects>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private nextListing: Promise<(Listing & { askedAt: number }) | undefined> | undefined;

  constructor(private readonly list: () => Promise<Listing>) {}

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
      if (listing) show(objects, listing, askedAt);
      if (objects.disturbance || performance.now() >= endAt) return;
      await new Promise((resolve) => setTimeout(resolve, LIST_EVERY_MS));
    }
  }

  /**
   * One listing right before a Stop or Remove of the check's own goes out: once sent, that call ends the
   * object, and with it any sign of a stop someone else made since the last periodic listing. Bounded, so a
   * runtime slow to list holds the call back at most a moment.
   */
  async lookBeforeEnding(objects: CheckObjects): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), LOOK_BEFORE_ENDING_MS);
    });
    const asked = await Promise.race([this.sharedListing(), bound]);
    clearTimeout(timer);
    if (asked) show(objects, asked, asked.askedAt);
  }

  /**
   * One listing for every look asked before it goes out, so that calls a check sends together (a race it
   * makes on purpose) still go out together.
   */
  private sharedListing(): Promise<(Listing & { askedAt: number }) | undefined> {
    this.nextListing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.nextListing = undefined;
      const askedAt = performance.now();
      return this.list().then(
        (listing) => ({ ...listing, askedAt }),
        () => undefined,
      );
    });
    return this.nextListing;
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
      for (const objects of watching) if (this.checks.has(objects)) show(objects, listing, askedAt);
    } catch {
      // A listing that failed shows nothing; the next one may.
    }
    if (!this.stopped) this.schedule();
  }
}
