/**
 * The events one plugin recorded, with event-driven waits: `waitFor` searches the history first and then
 * listens; any number of waiters may be pending at once; nothing polls.
 */
import { NriProtocolError } from './errors.js';
import type { EventMatch, NriEventRecord } from './types.js';

/** True when every field given in `m` equals the record's; fields not given are not compared. */
export function matchesEvent(e: NriEventRecord, m: EventMatch): boolean {
  return (
    (m.event === undefined || e.event === m.event) &&
    (m.podId === undefined || e.pod.id === m.podId) &&
    (m.podName === undefined || e.pod.name === m.podName) &&
    (m.podUid === undefined || e.pod.uid === m.podUid) &&
    (m.containerId === undefined || e.container?.id === m.containerId) &&
    (m.containerName === undefined || e.container?.name === m.containerName)
  );
}

/** A one-line description of a record, for error messages and logs. */
export function describeEvent(e: NriEventRecord): string {
  const ctr = e.container ? ` ctr=${e.container.name}(${e.container.id.slice(0, 12)})` : '';
  return `#${e.seq} ${e.event} pod=${e.pod.namespace}/${e.pod.name}(${e.pod.id.slice(0, 12)})${ctr}`;
}

export function describeMatch(m: EventMatch): string {
  const parts = Object.entries(m).map(([k, v]) => `${k}=${String(v)}`);
  return parts.length > 0 ? parts.join(' ') : 'any event';
}

type Listener = (e: NriEventRecord) => void;

export class EventLog {
  private readonly records: NriEventRecord[] = [];
  private readonly listeners = new Set<Listener>();
  private endedWith: Error | undefined;
  /** How waiters are told the log ended, before the cause. */
  private endedHow = 'plugin connection ended';
  private readonly enders = new Set<(cause: Error) => void>();

  /** Every record, oldest first, optionally filtered. */
  all(match: EventMatch = {}): NriEventRecord[] {
    return this.records.filter((e) => matchesEvent(e, match));
  }

  count(match: EventMatch = {}): number {
    return this.all(match).length;
  }

  find(match: EventMatch = {}): NriEventRecord | undefined {
    return this.records.find((e) => matchesEvent(e, match));
  }

  /** Calls `listener` for every later record; returns the unsubscribe function. */
  onEvent(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The first record (history included) matching `match`. Rejects with ERR_NRI_TIMEOUT after `withinMs`,
   * naming `what` and the events that were seen, or with ERR_NRI_CLOSED when the plugin's connection
   * ends first.
   */
  waitFor(match: EventMatch, opts: { withinMs: number; what: string }): Promise<NriEventRecord> {
    const found = this.find(match);
    if (found) return Promise.resolve(found);
    if (this.endedWith) return Promise.reject(this.closedError(opts.what, this.endedWith));
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        this.enders.delete(onEnd);
      };
      const unsubscribe = this.onEvent((e) => {
        if (!matchesEvent(e, match)) return;
        done();
        resolve(e);
      });
      const onEnd = (cause: Error) => {
        done();
        reject(this.closedError(opts.what, cause));
      };
      this.enders.add(onEnd);
      const timer = setTimeout(() => {
        done();
        reject(
          new NriProtocolError(
            'ERR_NRI_TIMEOUT',
            `${opts.what}: no ${describeMatch(match)} within ${opts.withinMs} ms; ${this.seen()}`,
          ),
        );
      }, opts.withinMs);
    });
  }

  /** Appends a record and tells every listener (a throwing listener does not stop the others). */
  record(e: NriEventRecord): void {
    this.records.push(e);
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch {
        // A listener's bug must not change how the plugin answers the runtime.
      }
    }
  }

  /**
   * Nothing more will be recorded (the plugin's connection ended, or `how` else): pending waiters reject,
   * and with them their timers go; the history stays readable.
   */
  end(cause: Error, how = 'plugin connection ended'): void {
    if (this.endedWith) return;
    this.endedWith = cause;
    this.endedHow = how;
    for (const e of [...this.enders]) e(cause);
  }

  private seen(): string {
    if (this.records.length === 0) return 'seen: nothing';
    const last = this.records.slice(-10).map(describeEvent);
    const more = this.records.length > 10 ? ` (last 10 of ${this.records.length})` : '';
    return `seen${more}: ${last.join('; ')}`;
  }

  private closedError(what: string, cause: Error): NriProtocolError {
    return new NriProtocolError(
      'ERR_NRI_CLOSED',
      `${what}: ${this.endedHow} (${cause.message}); ${this.seen()}`,
      {
        cause,
      },
    );
  }
}
