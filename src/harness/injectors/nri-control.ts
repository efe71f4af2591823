/**
 * NRI plugins that belong to one check: they see only the check's own pods, write every event to the
 * check's timeline, and are closed (releasing every held hook) when the check ends.
 */
import { matchesEvent } from '../../nri/event-log.js';
import { NriPlugin, type PluginOptions } from '../../nri/plugin.js';
import type {
  EventMatch,
  FaultSpec,
  NriContainer,
  NriEventName,
  NriEventRecord,
  NriPod,
} from '../../nri/types.js';
import type { FaultHandle, NriControl, TestPlugin } from '../check/context.js';
import { undeclaredStall } from '../check/sharing.js';
import type { Sequence, Timeline } from '../check/timeline.js';
import { CHECK_LABEL, isOurPod, RUN_LABEL, TRIAL_LABEL } from '../core/labels.js';
import type { Need } from '../core/vocabulary.js';
import type { RegistrationGate } from './registration-gate.js';

export interface NriControlDeps {
  socketPath: string;
  runId: string;
  checkId: string;
  /** The check's declared needs: only a check that declares it may stall hooks (see sharing.ts). */
  needs: readonly Need[];
  sequence: Sequence;
  /** Registrations wait for other checks' pod removals (registration-gate.ts). */
  registrations: RegistrationGate;
  timeline: Timeline;
  /** The runtime's plugin request timeout: how long the contracts make a check wait out a hung hook. */
  nriRequestTimeoutMs: number;
  /** The check's signal: once it aborts, no plugin of the check may connect any more. */
  signal: AbortSignal;
  /** Sees every event of the check's pods as it arrives (disturbance.ts). */
  onEvent?: (e: NriEventRecord) => void;
  /**
   * The trial the caller runs in (trial-scope.ts). A plugin registered in a trial is that trial's: it acts
   * on the trial's pods only, carries the trial in its name, and goes with the trial's cleanup.
   */
  trialOf?: () => number | undefined;
  /** The key the registration gate knows the caller by (the check, or one of its trials). */
  gateKey?: () => string;
  /** Runs a registration as a call that needs the runtime's hooks (hook-lane.ts hooked). */
  hooked?: <T>(register: () => Promise<T>) => Promise<T>;
  /** Whether the caller is inside the hook lane (a 'holds-in-lane' check stalls hooks only there). */
  laned?: () => boolean;
}

/**
 * How long a check's plugin may take to be registered and synchronized. The runtime synchronizes a new
 * plugin only once the creations and hook deliveries under way have ended (containerd 2.x blocks plugin
 * sync during each), which on a loaded node took more than the NRI default of 5 s (NAME-05 on containerd
 * 2.1.9 in CI, twice in three runs on a slow machine). Waiting longer costs nothing where it is quick.
 */
const CHECK_PLUGIN_REGISTERED_WITHIN_MS = 15_000;

export class CheckNri implements NriControl {
  readonly available = true;
  /** The check's plugins, each with the trial it was registered in. */
  private readonly plugins: { plugin: CheckPlugin; trial: number | undefined }[] = [];
  private readonly watched = new Set<string>();

  constructor(private readonly deps: NriControlDeps) {}

  async plugin(opts: {
    index: string;
    events: readonly NriEventName[];
    name?: string;
    forAllTrials?: boolean;
    registeredWithinMs?: number;
  }): Promise<TestPlugin> {
    const trial = opts.forAllTrials ? undefined : this.deps.trialOf?.();
    const own = opts.name ?? `cri-conform-${this.deps.checkId.toLowerCase()}`;
    // Trials side by side each register their own plugin; a runtime tells plugins apart by index and name.
    const name = trial === undefined || opts.name !== undefined ? own : `${own}-t${trial}`;
    const pluginOpts: PluginOptions = {
      socketPath: this.deps.socketPath,
      name,
      index: opts.index,
      events: opts.events,
      sequence: this.deps.sequence.next,
      registrationTimeoutMs: opts.registeredWithinMs ?? CHECK_PLUGIN_REGISTERED_WITHIN_MS,
      acceptsPod: (pod, container) => this.isOurs(pod, container, trial),
      onEvent: (e) => this.record(e),
      // Until the runtime gives up on the plugin the check can only wait; past its timeout it waits on the
      // runtime's slowness, which the contract does not require.
      onHungUntilClosed: (_e, ms) => {
        this.deps.timeline.addRequiredWait(Math.min(ms, this.deps.nriRequestTimeoutMs), trial);
      },
    };
    const hooked = this.deps.hooked ?? (<T>(register: () => Promise<T>) => register());
    const start = () =>
      hooked(() =>
        this.deps.registrations.registration(
          this.deps.gateKey?.() ?? this.deps.checkId,
          () => startWhileLive(pluginOpts, this.deps.signal),
          this.deps.signal,
        ),
      );
    const plugin = new CheckPlugin(pluginOpts, await start(), start, {
      id: this.deps.checkId,
      needs: this.deps.needs,
      timeline: this.deps.timeline,
      laned: this.deps.laned ?? (() => false),
    });
    this.plugins.push({ plugin, trial });
    this.deps.timeline.note(`NRI plugin ${plugin.label} registered for ${opts.events.join(',')}`);
    return plugin;
  }

  /** Every event of the check's pods; inside a trial, of the trial's pods only. */
  events(match: EventMatch = {}): NriEventRecord[] {
    const trial = this.deps.trialOf?.();
    return this.plugins
      .flatMap(({ plugin }) => plugin.events(match))
      .filter((e) => trial === undefined || trialOfEvent(e) === trial)
      .sort((a, b) => a.seq - b.seq);
  }

  watchIds(ids: readonly string[]): void {
    for (const id of ids) if (id !== '') this.watched.add(id);
  }

  /**
   * An event is the check's when its pod has every mark of the run's own (labels.ts) and it or its container
   * carries the check's labels, when it names an id the check watches, or when its pod is no one's (no id,
   * or neither name nor uid): no runtime creates such a pod, so only a runtime relaying an invalid request
   * sends one, and the check must see it.
   */
  private isOurs(pod: NriPod, container: NriContainer | undefined, trial: number | undefined): boolean {
    const labelled = (labels: Record<string, string>) =>
      labels[RUN_LABEL] === this.deps.runId &&
      labels[CHECK_LABEL] === this.deps.checkId &&
      (trial === undefined || labels[TRIAL_LABEL] === String(trial));
    const marked = isOurPod({ labels: pod.labels, metadata: { name: pod.name, namespace: pod.namespace } });
    if (marked && (labelled(pod.labels) || (container !== undefined && labelled(container.labels))))
      return true;
    const ids = [pod.id, container?.id ?? '', container?.podSandboxId ?? ''];
    if (ids.some((id) => id !== '' && this.watched.has(id))) return true;
    return pod.id === '' || (pod.name === '' && pod.uid === '');
  }

  /** Releases every hold and disconnects every plugin of the check, or those of one trial. */
  async closeAll(trial?: number): Promise<void> {
    const closing = this.plugins.filter((p) => trial === undefined || p.trial === trial);
    await Promise.allSettled(closing.map(({ plugin }) => plugin.close()));
  }

  private record(e: NriEventRecord): void {
    this.deps.onEvent?.(e);
    const trial = trialOfEvent(e);
    this.deps.timeline.add(
      {
        kind: 'nri',
        ...(trial === undefined ? {} : { trial }),
        plugin: `${e.pluginIndex}-${e.pluginName}`,
        event: e.event,
        podId: e.pod.id,
        podName: e.pod.name,
        ...(e.container ? { containerId: e.container.id, containerName: e.container.name } : {}),
        ...(e.fault ? { note: `fault: ${e.fault}` } : {}),
      },
      e.atMs,
      e.seq,
    );
  }
}

class CheckPlugin implements TestPlugin {
  private history: NriEventRecord[] = [];

  constructor(
    private readonly opts: PluginOptions,
    private current: NriPlugin,
    private readonly start: () => Promise<NriPlugin>,
    private readonly owner: { id: string; needs: readonly Need[]; timeline: Timeline; laned: () => boolean },
  ) {}

  get label(): string {
    return `${this.opts.index}-${this.opts.name}`;
  }

  get runtime() {
    return this.current.runtime;
  }

  get synchronized() {
    return this.current.synchronized;
  }

  events(match: EventMatch = {}): NriEventRecord[] {
    return [...this.history, ...this.current.events.all()].filter((e) => matchesEvent(e, match));
  }

  waitFor(match: EventMatch, opts: { withinMs: number; what: string }): Promise<NriEventRecord> {
    const earlier = this.history.find((e) => matchesEvent(e, match));
    if (earlier) return Promise.resolve(earlier);
    return this.current.events.waitFor(match, opts);
  }

  fault(spec: FaultSpec): FaultHandle {
    const refused = undeclaredStall(this.owner, spec.action.kind, this.owner.laned());
    if (refused) throw new Error(refused);
    return this.current.addFault(spec);
  }

  isConnected(): boolean {
    return this.current.isConnected();
  }

  async waitDisconnected(opts: { withinMs: number }): Promise<Error | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'open'>((resolve) => {
      timer = setTimeout(() => resolve('open'), opts.withinMs);
    });
    const outcome = await Promise.race([this.current.closed.then((e) => e ?? new Error('closed')), timeout]);
    clearTimeout(timer);
    if (outcome !== 'open') return outcome;
    // A window the connection outlived is one the contract set: the plugin had to stay connected through
    // it, or a runtime that never drops it can only be told from a slow one by waiting it out.
    this.owner.timeline.addRequiredWait(opts.withinMs);
    return undefined;
  }

  async reconnect(): Promise<void> {
    this.history = [...this.history, ...this.current.events.all()];
    await this.current.close();
    this.current = await this.start();
  }

  close(): Promise<void> {
    return this.current.close();
  }
}

/** The trial whose pod (or container) an event is about, by its trial label; undefined for none. */
function trialOfEvent(e: NriEventRecord): number | undefined {
  const label = e.pod.labels[TRIAL_LABEL] ?? e.container?.labels[TRIAL_LABEL];
  return label === undefined ? undefined : Number(label);
}

/**
 * Starts a plugin unless the check has ended; one that finishes registering after the check ended is
 * closed at once, so abandoned check code can never leave a plugin (or a held hook) behind.
 */
async function startWhileLive(opts: PluginOptions, signal: AbortSignal): Promise<NriPlugin> {
  signal.throwIfAborted();
  const plugin = await NriPlugin.start(opts);
  if (signal.aborted) {
    await plugin.close();
    signal.throwIfAborted();
  }
  return plugin;
}
