/**
 * Beside a detected kubelet, what the run sees of its own objects, shown to every check that runs: a
 * listing a few times a second, one right before each Stop or Remove of a check's own, a last one before
 * each verdict, and the NRI teardown events of the run's objects as the run-wide watch plugin gets them
 * (ending-watch.ts). Each check's CheckObjects (disturbance.ts) judges what it is shown.
 */
import type { CriClient } from '../../cri/client.js';
import type { NriEventRecord } from '../../nri/types.js';
import { isOurContainer, isOurPod, RUN_LABEL } from '../core/labels.js';
import type { CheckObjects, ListedPod } from './disturbance.js';
import { type EndingWatch, startEndingWatch } from './ending-watch.js';

/** The run's objects as one listing shows them. */
export interface Listing {
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
/**
 * How long a kubelet's stop that is under way may take to show: containerd 1.7 beside the kubelet double
 * sent the NRI StopPodSandbox event 134 ms into the kubelet's StopPodSandbox of a pod with no container.
 */
const STOP_UNDER_WAY_SHOWS_MS = 500;
/** How long a check's own Stop or Remove waits for the look before it: a slow listing only goes unused. */
export const LOOK_BEFORE_ENDING_MS = 1_000;

/**
 * Lists the run's objects a few times a second and shows each listing to every running check. One poller
 * per run, so the load does not grow with --parallel.
 */
export class DisturbanceMonitor {
  private readonly checks = new Set<CheckObjects>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private nextListing: Promise<(Listing & { askedAt: number }) | undefined> | undefined;
  private events: EndingWatch | undefined;
  /** What the run hears beside the listings, for the run's note. */
  hears = 'listings only';

  constructor(private readonly list: () => Promise<Listing>) {}

  /** Feeds the monitor the run-wide NRI teardown events (ending-watch.ts) until stop(). */
  async hearEvents(socketPath: string, runId: string): Promise<void> {
    const watch = await startEndingWatch(socketPath, runId, (e) => this.nriEvent(e));
    if ('unavailable' in watch) {
      this.hears = `listings only (${watch.unavailable})`;
      return;
    }
    this.events = watch;
    this.hears = "listings and the NRI teardown events of the run's objects";
  }

  watch(objects: CheckObjects): () => void {
    this.checks.add(objects);
    if (!this.timer && !this.stopped) this.schedule();
    return () => this.checks.delete(objects);
  }

  /**
   * An NRI event of one of the run's objects, as the run-wide watch plugin got it: every check whose
   * object it is judges it, whether or not a plugin of its own subscribed to it.
   */
  nriEvent(e: Pick<NriEventRecord, 'event' | 'pod' | 'container'>): void {
    for (const objects of this.checks) objects.nriEvent(e);
  }

  /**
   * A check's last look before it is judged, or before its cleanup ends what it made: listings for
   * `settleMs` (at least one), while the NRI watch goes on hearing. A kubelet's stop that is already under
   * way shows only once the runtime gets far enough into it (its NRI event, the pod NOTREADY), and once
   * the check's own stop has gone out, nothing tells the two apart. A kubelet stops an orphan's containers
   * first, with a 1 s grace, and its sandbox after that: a check that failed on a killed container
   * watches longer (execute-check.ts).
   */
  async lastLook(objects: CheckObjects, settleMs = STOP_UNDER_WAY_SHOWS_MS): Promise<void> {
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

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.events?.close();
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

/**
 * Beside a detected kubelet: the monitor of the run's own objects, listed by their run label and, where
 * the runtime has NRI, heard through the ending watch.
 */
export async function besideKubeletMonitor(
  client: CriClient,
  runId: string,
  nriSocket: string | undefined,
): Promise<DisturbanceMonitor> {
  const labelSelector = { [RUN_LABEL]: runId };
  const deadlineMs = 5_000;
  const monitor = new DisturbanceMonitor(async () => {
    const [{ items }, { containers }] = await Promise.all([
      client.call('ListPodSandbox', { filter: { labelSelector } }, { deadlineMs }),
      client.call('ListContainers', { filter: { labelSelector } }, { deadlineMs }),
    ]);
    // The run's own: every mark (labels.ts), not the label alone.
    const pods = items.filter((p) => isOurPod(p, runId));
    const podIds = new Set(pods.map((p) => p.id));
    const ours = containers.filter((c) => isOurContainer(c, podIds, runId));
    const exited = ours.filter((c) => c.state === 'CONTAINER_EXITED');
    return {
      pods,
      containerIds: new Set(ours.map((c) => c.id)),
      exitedContainerIds: new Set(exited.map((c) => c.id)),
    };
  });
  if (nriSocket) await monitor.hearEvents(nriSocket, runId);
  return monitor;
}
