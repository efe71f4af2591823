/**
 * The [Node] leak probe of a trial, without knowing ids in advance: a host baseline before the trial, and
 * after it whatever is new and belongs to the trial. The ids come from every source a trial has: the
 * runtime's own records (by this check's and this trial's labels), the slow runtime's and slow CNI's logs, NRI events, the
 * CRI and what the check itself was told; netns are blamed by owner (the CNI log, a process of the trial).
 */
import {
  CHECK_LABEL,
  type CheckContext,
  describeLeaks,
  describeLeaksByOwner,
  type HostBaseline,
  type HostLeak,
  RUN_LABEL,
  TRIAL_LABEL,
} from '../../src/harness/face.js';

/** Gathers the trial's ids and netns owners as they appear; call `look()` at moments where they exist. */
export class TrialEvidence {
  private readonly ids = new Set<string>();
  private readonly owners = new Map<string, string>();

  constructor(
    private readonly t: CheckContext,
    readonly baseline: HostBaseline,
    /** The runtime's records of this check from before the trial (an earlier trial's leak). */
    private readonly known: ReadonlySet<string>,
  ) {}

  /** A host baseline now, before the trial makes anything. */
  static async start(t: CheckContext): Promise<TrialEvidence> {
    const known = new Set(await t.host.recordIds(runLabels(t)));
    return new TrialEvidence(t, await t.host.baseline(), known);
  }

  add(...ids: readonly (string | undefined)[]): void {
    for (const id of ids) if (id && !this.known.has(id)) this.ids.add(id);
  }

  /** Collects ids from every source, and the netns the trial's processes live in now. */
  async look(): Promise<void> {
    const { t } = this;
    for (const ev of t.nri.available ? t.nri.events() : []) this.add(ev.pod.id, ev.container?.id);
    this.add(...(await t.host.recordIds(runLabels(t))));
    for (const p of await t.cri.listPods()) this.add(p.id);
    for (const c of await t.cri.listContainers()) this.add(c.id);
    for (const [netns, owner] of t.host.netnsOwners([...this.ids], this.baseline))
      this.owners.set(netns, owner);
  }

  /** Adds what the injectors logged: created ids, and the netns the slow CNI set up for each sandbox. */
  async fromInjectors(sources: {
    createdIds?: () => Promise<string[]>;
    added?: () => Promise<Map<string, string>>;
  }): Promise<void> {
    this.add(...((await sources.createdIds?.()) ?? []));
    for (const [netns, id] of (await sources.added?.()) ?? []) {
      this.add(id);
      this.owners.set(netns, id);
    }
  }

  /** What of the trial is left on the host and in the runtime's records, as one line ('' when nothing). */
  async leftovers(): Promise<string> {
    return describeLeaks(await this.leaks());
  }

  /**
   * What of the trial is left, one line per build that left it (by the id each leftover belongs to, in the
   * order found; what no probe could tie to an id is one more line): independent findings, since two
   * abandoned builds in one trial may have left theirs through two different bugs. Empty when nothing.
   */
  async leftoversByBuild(): Promise<string[]> {
    return describeLeaksByOwner(await this.leaks());
  }

  /** What of the trial is left, one finding each (to merge with another probe's before describing). */
  async leaks(): Promise<HostLeak[]> {
    await this.look();
    return this.t.host.newLeftovers(this.baseline, {
      ids: [...this.ids],
      netnsOwners: this.owners,
      known: this.known,
      labels: runLabels(this.t),
    });
  }
}

/**
 * This check's labels in this run, and inside a trial the trial's: how the runtime's own records of the
 * caller's objects are found (never those of the trials running beside it).
 */
export function runLabels(t: CheckContext): Record<string, string> {
  const labels = t.make.pod('labels').labels;
  const trial = labels[TRIAL_LABEL];
  return {
    [RUN_LABEL]: labels[RUN_LABEL] ?? '',
    [CHECK_LABEL]: labels[CHECK_LABEL] ?? '',
    ...(trial === undefined ? {} : { [TRIAL_LABEL]: trial }),
  };
}
