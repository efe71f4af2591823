/**
 * One timeline per check, one sequence per run: CRI calls and NRI events of concurrent checks are ordered
 * by `seq`, never by clocks.
 */
import { performance } from 'node:perf_hooks';
import type { TimelineEntry } from './result.js';

type Distribute<T> = T extends unknown ? Omit<T, 'seq' | 'atMs'> : never;
export type TimelineInput = Distribute<TimelineEntry>;

export class Sequence {
  private last = 0;
  next = (): number => ++this.last;
}

export class Timeline {
  readonly entries: TimelineEntry[] = [];
  readonly startedAt = performance.now();
  /** See CheckResult.requiredWaitMs. */
  requiredWaitMs = 0;

  constructor(private readonly sequence: Sequence) {}

  /** Adds an entry; `at` is a performance.now() reading when the thing happened (default: now). */
  add(entry: TimelineInput, at: number = performance.now(), seq: number = this.sequence.next()): void {
    const atMs = Math.round(at - this.startedAt);
    this.entries.push({ ...entry, seq, atMs } as TimelineEntry);
  }

  note(text: string): void {
    this.add({ kind: 'note', text });
  }
}
