/**
 * One timeline per check, one sequence per run: CRI calls and NRI events of concurrent checks are ordered
 * by `seq`, never by clocks. Entries made inside a trial carry its number (trials run side by side, so
 * their entries interleave), and so do the waits the contract requires, for the check's floor.
 */
import { performance } from 'node:perf_hooks';
import type { TimelineEntry } from './result.js';

type Distribute<T> = T extends unknown ? Omit<T, 'seq' | 'atMs'> : never;
export type TimelineInput = Distribute<TimelineEntry>;

export class Sequence {
  private last = 0;
  next = (): number => ++this.last;
}

/** Where the caller runs: its trial (undefined outside trials), and whether it is in the one-at-a-time lane. */
export interface Whereabouts {
  trial(): number | undefined;
  laned(): boolean;
}

const NOWHERE: Whereabouts = { trial: () => undefined, laned: () => false };

export class Timeline {
  readonly entries: TimelineEntry[] = [];
  readonly startedAt = performance.now();
  /** See CheckResult.requiredWaitMs: every required wait, summed. */
  requiredWaitMs = 0;
  /** The same waits by the trial they were made in. */
  readonly requiredByTrial = new Map<number, number>();
  /** Of those, the ones a trial waited out resting, without its place (trial-places.ts). */
  readonly restingByTrial = new Map<number, number>();
  /** Those made in the one-at-a-time lane, which no two trials share. */
  lanedRequiredMs = 0;

  constructor(
    private readonly sequence: Sequence,
    private readonly where: Whereabouts = NOWHERE,
  ) {}

  /**
   * Adds an entry; `at` is a performance.now() reading when the thing happened (default: now). It belongs
   * to the caller's trial unless it names its own.
   */
  add(entry: TimelineInput, at: number = performance.now(), seq: number = this.sequence.next()): void {
    const atMs = Math.round(at - this.startedAt);
    const trial = entry.trial ?? this.where.trial();
    this.entries.push({ ...entry, seq, atMs, ...(trial === undefined ? {} : { trial }) } as TimelineEntry);
  }

  note(text: string): void {
    this.add({ kind: 'note', text });
  }

  /** Per trial (undefined: outside the trials), where the spans counted by addRequiredSpan end. */
  private readonly spannedUntil = new Map<number | undefined, number>();

  /**
   * Counts the wait from `from` to `to` (performance.now() readings) as required, for the caller's trial,
   * but only the part that no span it counted before covers: waits a trial makes at once (two probes
   * awaited together) count once. `resting`: the trial waited it out without its place.
   */
  addRequiredSpan(from: number, to: number, opts: { resting?: boolean } = {}): void {
    const trial = this.where.trial();
    const until = this.spannedUntil.get(trial) ?? Number.NEGATIVE_INFINITY;
    this.spannedUntil.set(trial, Math.max(until, to));
    const ms = to - Math.max(from, until);
    if (ms <= 0) return;
    this.addRequiredWait(ms, trial);
    if (opts.resting && trial !== undefined)
      this.restingByTrial.set(trial, (this.restingByTrial.get(trial) ?? 0) + ms);
  }

  /** Counts `ms` as a wait the contract requires, for the caller's trial (or `trial`). */
  addRequiredWait(ms: number, trial: number | undefined = this.where.trial()): void {
    this.requiredWaitMs += ms;
    if (trial !== undefined) this.requiredByTrial.set(trial, (this.requiredByTrial.get(trial) ?? 0) + ms);
    if (this.where.laned()) this.lanedRequiredMs += ms;
  }
}
