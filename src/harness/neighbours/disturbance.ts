/**
 * Telling what happened to a check's objects that the check did not ask for, and whose doing it was.
 *
 * The tracked CRI reports every call of the check here before it is sent, and every reply: so this knows
 * which objects the check made and which it asked to stop or remove. Against that:
 * - an NRI StopPodSandbox, RemovePodSandbox or RemoveContainer event (heard by the check's own plugins, and
 *   beside a kubelet by the run's watch plugin, ending-watch.ts) for an object the check made and never
 *   asked to end (also one that came before the reply that named the object) is never the check's doing.
 *   Without a kubelet (none detected, whatever the flags) nobody else knows the object: the runtime ended it
 *   by itself, a violation, and the check FAILs with the event as evidence. Beside a detected kubelet it is
 *   taken for the kubelet's doing, which makes the verdict meaningless either way: ERROR "disturbed".
 * - beside a detected kubelet, also: a listing that shows such a pod no longer READY or gone, or such a
 *   container exited or gone; an NRI StopContainer event for such a container; a NOT_FOUND for such an
 *   object. Without one these could be the runtime's own lawful doing, which is for the check to judge
 *   (containerd shows a container that exits by itself as exited, and sends StopContainer for it). There a
 *   READY pod that carries the check's label counts as the check's own even when no reply named it: a
 *   timed-out RunPodSandbox builds a pod whose id the check never learns, and a kubelet stops that one too.
 *   The price: a runtime that stops or removes such a build by itself, or a container of the check that
 *   exits by itself, is taken for the kubelet's doing, which costs only a verdict (ERROR), never a wrong one.
 * - beside a detected kubelet, also a Stop or Remove of the check's own, sent while the check still had the
 *   object, that the runtime fails: the kubelet may have been ending the same object at that moment. A
 *   failed Stop or Remove of an object the check had already ended is the runtime's failure (IDEM-11),
 *   unless the NRI event of another client's ending of it came after the call went out (ending-met.ts).
 * - beside a detected kubelet, also a container that exited before the check's own StopContainer, or its
 *   pod's StopPodSandbox, went out (its status's finishedAt), or, for a container the check says ignores
 *   TERM, before its StopContainer's grace ran out: another stop was under way (own-stop.ts).
 * - a StartContainer of the check that fails ends its container as the check's own doing: containerd stops
 *   it, and its StopContainer event may come before the reply.
 * A check that judges a scenario another check ran (t.shared) is disturbed when that scenario was.
 */
import type { CriMethod } from '../../cri/types.js';
import type { NriEventRecord } from '../../nri/types.js';
import { CHECK_LABEL, isOurPod } from '../core/labels.js';
import { timeOfDay } from '../core/time-of-day.js';
import { EndingsMet } from './ending-met.js';
import { OwnObjects } from './own-objects.js';
import { type AnsweredStop, exitedBeforePodStop, stopBeforeOwn } from './own-stop.js';

/**
 * The clause every check's contract has beside its own (CheckSpec.clauses): the runtime does not end, by
 * itself, an object only the check knows. A FAIL for the runtime's own teardown event goes through it.
 */
export const ENDED_BY_RUNTIME_CLAUSE = 'ended-by-runtime';

/**
 * How long a kubelet's kill of a pod it does not know takes to show in full: its 1 s grace for the pod's
 * containers, then its sandbox stop. A failure that may be such a kill is watched this long before it
 * stands (a check's failure, doctor's proof pod).
 */
export const KUBELET_KILL_SHOWS_MS = 2_500;

/** A pod as the run-wide listing shows it (the CRI's PodSandbox, or as much of it as a test gives). */
export interface ListedPod {
  id: string;
  state: string;
  labels?: Record<string, string>;
  metadata?: { name?: string; namespace?: string };
}

export interface Disturbance {
  /**
   * Whose doing it was: 'the runtime' only without a kubelet (the check FAILs), 'another client' only
   * beside a detected one (the check ends in ERROR "disturbed").
   */
  by: 'another client' | 'the runtime';
  /** "pod cc-idem-01-a-1f2e3d4c" or "container workload (in pod ...)". */
  object: string;
  /**
   * A NOT_FOUND tells only that the object is no longer usable: 'stopped or removed'. A Stop or Remove of
   * the check's own that failed tells only that another client may have been ending it at the same time.
   */
  action:
    | 'stopped'
    | 'removed'
    | 'stopped or removed'
    | 'perhaps being stopped'
    | 'perhaps being removed'
    | 'exited by itself, as the check meant it to, or stopped';
  at: Date;
  /** How it was seen: "an NRI StopPodSandbox event", "ListPodSandbox", "a NOT_FOUND from PodSandboxStatus". */
  seenBy: string;
}

export function describeDisturbance(d: Disturbance): string {
  const time = timeOfDay(d.at);
  if (d.by === 'the runtime')
    return `ended by the runtime itself: ${d.object} was ${d.action} at ${time} though no client asked for it (the check had not, and no kubelet drives the runtime), seen by ${d.seenBy}`;
  if (d.action === 'exited by itself, as the check meant it to, or stopped')
    return `disturbed: ${d.object} exited by itself at ${time}, as the check meant it to, or was stopped by another client (a kubelet?): beside a kubelet the two cannot be told apart (a kubelet stops every container of a pod it does not know, and the runtime shows that stop as it shows an exit: the container EXITED, an NRI StopContainer event), seen by ${d.seenBy}`;
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
  /** A kubelet was detected and the run goes on beside it (--beside-kubelet): see the rules above. */
  besideAnotherClient: boolean;
  /** The check's id, as its objects' check label carries it: listed pods with it are the check's. */
  checkId?: string;
  onDisturbed: (d: Disturbance) => void;
}

/** What one NRI teardown event says of its object, for the events that never come of a lawful exit. */
type EndingEvent = { id: string; action: 'stopped' | 'removed'; seenBy: string; at: Date };

/** One check's objects, what it asked of them, and the first disturbance seen. */
export class CheckObjects {
  /** What the check made and asked to end. */
  private readonly own = new OwnObjects();
  /** Stop and Remove requests of the check's own that went out while their object was still live. */
  private readonly endingLive = new WeakSet<object>();
  /** The check's containers that were live when a StopPodSandbox of its own went out, by that request. */
  private readonly liveAtPodStop = new WeakMap<object, string[]>();
  /** Teardown events for ids no reply had named yet: judged once a reply names them. */
  private readonly early = new Map<string, EndingEvent>();
  /** Containers whose StartContainer is on its way, and whether an NRI StopContainer came meanwhile. */
  private readonly starting = new Map<string, { stopSeenAt?: Date }>();
  /** Failed Stop or Remove calls of already ended objects, and another client's ending they met. */
  private readonly endingsMet = new EndingsMet((met) => this.report(met.id, met.action, met.seenBy));
  private found: Disturbance | undefined;
  /** Looks at the check's objects still on their way (stopAnswered's status calls). */
  private readonly looking = new Set<Promise<unknown>>();
  private readonly scenarios: { by: string; disturbance: () => Disturbance | undefined }[] = [];
  /**
   * While the check's own cleanup sweeps its label (or a trial's: several may at once), and until a
   * listing asked after it: no adopting.
   */
  private sweeping = 0;
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

  /** A look at one of the check's objects on its way: its verdict waits for it (settled). */
  lookingAt(look: Promise<unknown>): void {
    this.looking.add(look);
    const forget = () => this.looking.delete(look);
    look.then(forget, forget);
  }

  /** Every look under way has ended: what they found is in `disturbance`. */
  async settled(): Promise<void> {
    while (this.looking.size > 0) await Promise.allSettled([...this.looking]);
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
    if (!ENDING_METHODS.has(method) || typeof request !== 'object' || request === null) return;
    if (this.own.isLive(id)) {
      this.endingLive.add(request);
      if (method === 'StopPodSandbox') this.liveAtPodStop.set(request, this.own.liveContainersOf(id));
    } else if (this.own.knows(id)) this.endingsMet.sending(request);
    this.own.ended.add(id);
  }

  /** The container's workload ends by itself, as the check means it to: see describeDisturbance. */
  exitsByItself(containerId: string): void {
    this.own.meantToExit.add(containerId);
  }

  /** Whether this Stop or Remove request of the check's went out while the check still had its object. */
  endedLive(request: unknown): boolean {
    return typeof request === 'object' && request !== null && this.endingLive.has(request);
  }

  /**
   * The check's cleanup is about to end everything it made so far, or, with `namePrefix`, everything of one
   * trial (the pods whose names start with it, and their containers).
   */
  endingAll(namePrefix?: string): void {
    this.own.endAll(namePrefix);
    this.sweeping++;
  }

  /** The cleanup's sweep is over: pods listed from now on with the check's label are new ones. */
  sweepDone(): void {
    this.sweeping = Math.max(0, this.sweeping - 1);
    this.sweptAt = performance.now();
  }

  replied(method: CriMethod, request: unknown, reply: unknown): void {
    const made = this.own.learn(method, request, reply);
    if (method === 'StartContainer') this.started(idOf(request) ?? '', 'ok');
    const early = made ? this.early.get(made) : undefined;
    if (early && this.own.isLive(early.id)) this.report(early.id, early.action, early.seenBy, early.at);
  }

  /**
   * A call of the check that failed. Beside a kubelet: a NOT_FOUND for an object the check made and never
   * ended means someone removed it; a Stop or Remove of the check's own, sent while the check still had the
   * object, that the runtime failed means the kubelet may have been ending the same object at that moment
   * (a kubelet stops every pod it does not know, and two stops of one pod at once is a race some runtimes
   * lose, see IDEM-15), which no listing or event can tell apart. Without a kubelet both are the runtime's
   * failures, for the check to judge.
   */
  failed(method: CriMethod, request: unknown, statusName: string): void {
    const id = idOf(request);
    if (method === 'StartContainer') this.started(id ?? '', statusName === 'NOT_FOUND' ? 'gone' : 'failed');
    if (!this.opts.besideAnotherClient || !id) return;
    // CreateContainer's NOT_FOUND may name its image.
    if (statusName === 'NOT_FOUND' && BY_ID_METHODS.has(method) && this.own.isLive(id))
      this.report(id, 'stopped or removed', `a NOT_FOUND from ${method}`);
    // A deadline or a cancel is the check's own giving up, not the runtime's failure.
    const gaveUp = statusName === 'DEADLINE_EXCEEDED' || statusName === 'CANCELLED';
    if (!ENDING_METHODS.has(method) || gaveUp || typeof request !== 'object' || request === null) return;
    if (this.endedLive(request)) {
      const action = method.startsWith('Stop') ? 'perhaps being stopped' : 'perhaps being removed';
      this.report(id, action, `its own ${method} failing with ${statusName}`);
    } else if (this.own.knows(id)) this.endingsMet.failed(method, request, id, statusName);
  }

  /** Beside a kubelet, a StopContainer of the check's own, sent while it had the container, answered OK. */
  stopAnswered(containerId: string, stop: AnsweredStop, state: string): void {
    const found = this.opts.besideAnotherClient ? stopBeforeOwn(stop, state) : undefined;
    if (found) this.report(containerId, found.action, found.seenBy, found.at);
  }

  /** The check's containers that were live when this StopPodSandbox request of its own went out. */
  containersLiveAt(podStop: object): readonly string[] {
    return this.liveAtPodStop.get(podStop) ?? [];
  }

  /**
   * Beside a kubelet, a container that was live when the check's own StopPodSandbox of its pod went out,
   * and that call answered OK: had it exited before the call went out (own-stop.ts)?
   */
  podStopAnswered(containerId: string, sentAtMs: number, finishedAtMs: number | undefined): void {
    const found = this.opts.besideAnotherClient ? exitedBeforePodStop(finishedAtMs, sentAtMs) : undefined;
    if (found) this.report(containerId, found.action, found.seenBy, found.at);
  }

  /**
   * A StartContainer of the check settled. One that failed ends its container as the check's own doing
   * (containerd stops it and sends StopContainer, maybe before the reply); after one that succeeded, a
   * StopContainer that came meanwhile is judged now. A NOT_FOUND is judged as any other.
   */
  private started(id: string, outcome: 'ok' | 'failed' | 'gone'): void {
    const start = this.starting.get(id);
    this.starting.delete(id);
    if (outcome === 'failed') this.own.ended.add(id);
    else if (outcome === 'ok' && start?.stopSeenAt && this.own.isLive(id))
      this.report(id, 'stopped', 'an NRI StopContainer event', start.stopSeenAt);
  }

  nriEvent(e: Pick<NriEventRecord, 'event' | 'pod' | 'container'>): void {
    const ending = endingEvent(e);
    if (ending) {
      if (this.own.isLive(ending.id)) this.report(ending.id, ending.action, ending.seenBy, ending.at);
      else if (this.own.knows(ending.id)) this.endingsMet.heard(ending.id, ending.action);
      else if (!this.early.has(ending.id)) this.early.set(ending.id, ending);
    }
    // containerd also sends it when a container exits by itself: only beside another client.
    if (e.event === 'StopContainer' && e.container && this.opts.besideAnotherClient) {
      const start = this.starting.get(e.container.id);
      if (start) start.stopSeenAt ??= new Date();
      else if (this.own.isLive(e.container.id))
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
    for (const [id, pod] of this.own.pods) {
      if (pod.learnedAt >= askedAt || !this.own.isLive(id)) continue;
      const state = states.get(id);
      if (state === undefined) this.report(id, 'removed', 'ListPodSandbox');
      else if (state !== 'SANDBOX_READY') this.report(id, 'stopped', 'ListPodSandbox');
    }
    for (const [id, c] of this.own.containers)
      if (c.learnedAt < askedAt && this.own.isLive(id)) {
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
    if (!checkId || this.sweeping > 0 || askedAt <= this.sweptAt) return;
    for (const p of pods) {
      const mine = isOurPod(p) && p.labels?.[CHECK_LABEL] === checkId;
      if (mine && p.state === 'SANDBOX_READY' && !this.own.pods.has(p.id) && !this.own.ended.has(p.id))
        this.own.pods.set(p.id, { name: p.metadata?.name ?? p.id, learnedAt: askedAt });
    }
  }

  private report(id: string, action: Disturbance['action'], seenBy: string, at = new Date()): void {
    if (this.found) return;
    const object = this.own.describe(id);
    const by = this.opts.besideAnotherClient ? 'another client' : 'the runtime';
    const exit = action === 'stopped' && this.own.meantToExit.has(id);
    this.found = {
      by,
      object,
      action: exit ? 'exited by itself, as the check meant it to, or stopped' : action,
      at,
      seenBy,
    };
    this.opts.onDisturbed(this.found);
  }
}

/** The teardown events a lawful exit never causes, with the object each one ends. */
function endingEvent(e: Pick<NriEventRecord, 'event' | 'pod' | 'container'>): EndingEvent | undefined {
  const seenBy = `an NRI ${e.event} event`;
  const at = new Date();
  if (!e.pod.id) return undefined;
  if (e.event === 'StopPodSandbox') return { id: e.pod.id, action: 'stopped', seenBy, at };
  if (e.event === 'RemovePodSandbox') return { id: e.pod.id, action: 'removed', seenBy, at };
  if (e.event === 'RemoveContainer' && e.container?.id)
    return { id: e.container.id, action: 'removed', seenBy, at };
  return undefined;
}

function idOf(request: unknown): string | undefined {
  const r = request as { podSandboxId?: string; containerId?: string } | null;
  return r?.containerId || r?.podSandboxId || undefined;
}
