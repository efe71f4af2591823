/**
 * Injected plugin misbehaviour, scoped to matching events. The plugin consults the table for each
 * recorded event (accepted pods only); the first armed fault that matches acts on it.
 */
import { NriProtocolError } from './errors.js';
import { describeMatch, EventLog, matchesEvent } from './event-log.js';
import type { FaultSpec, NriEventRecord } from './types.js';

export interface FaultHandle {
  /**
   * The first event this fault acted on (earlier ones included); rejects after `withinMs`, or at once when
   * the fault is removed first (by the check, or with its plugin), an error disarmedFirst() tells apart.
   */
  reached(opts: { withinMs: number }): Promise<NriEventRecord>;
  /**
   * Replies OK to every reply this fault holds now, a delay still running included (cut short); the fault
   * stays armed for later events.
   */
  release(): void;
  /** Disarms the fault and releases what it holds. */
  remove(): void;
  /** How many events it acted on. */
  readonly hits: number;
  /**
   * Resolves once every event it acted on has been answered (a delay has run out, a hang was released, the
   * plugin closed): the hook is no longer held here. At once when it acted on none.
   */
  answered(): Promise<void>;
}

/** Whether `e` is a FaultHandle.reached() that ended because the fault was removed before it acted. */
export function disarmedFirst(e: unknown): boolean {
  return e instanceof NriProtocolError && e.code === 'ERR_NRI_CLOSED';
}

/**
 * What the plugin does instead of an immediate OK. `hungUntilClosedMs` is how long a hang lasted that only
 * the connection's end cut short: the runtime gave up on the plugin, or the plugin was closed.
 */
export type FaultOutcome =
  | { reply: 'ok'; hungUntilClosedMs?: number }
  | { reply: 'error'; message: string }
  | { reply: 'crash' };

class Fault implements FaultHandle {
  hits = 0;
  armed = true;
  readonly acted = new EventLog();
  private held = new Set<() => void>();
  /** Actions under way, and who waits for them to end. */
  private acting = 0;
  private idle: (() => void)[] = [];

  answered(): Promise<void> {
    if (this.acting === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Runs one action of this fault, so that answered() knows when the last one ended (adds no tick). */
  track<T>(action: () => Promise<T>): Promise<T> {
    this.acting++;
    const done = () => {
      this.acting--;
      if (this.acting === 0) for (const wake of this.idle.splice(0)) wake();
    };
    const p = action();
    p.then(done, done);
    return p;
  }

  constructor(readonly spec: FaultSpec) {}

  reached(opts: { withinMs: number }): Promise<NriEventRecord> {
    const what = `fault ${this.spec.action.kind} on ${describeMatch(this.spec.match)}`;
    return this.acted.waitFor({}, { withinMs: opts.withinMs, what: `${what} not reached` });
  }

  release(): void {
    const held = [...this.held];
    this.held.clear();
    for (const r of held) r();
  }

  /** Disarms the fault; `why` tells the waits for its hook why they end ("removed", "its plugin closed"). */
  remove(why = 'removed'): void {
    this.armed = false;
    this.release();
    // A disarmed fault acts on nothing more: a wait for its hook (a hold the call answered before) ends
    // now, not at its deadline, which would keep the process alive that long after the run.
    this.acted.end(new Error(why), 'fault disarmed');
  }

  /** Resolves when released, removed, or the table is closed. */
  hold(): Promise<void> {
    return new Promise((resolve) => this.held.add(resolve));
  }

  /** Resolves when `delay` ends or, sooner, as hold() does. */
  async holdAtMost(delay: Promise<void>): Promise<void> {
    let wake: (() => void) | undefined;
    const released = new Promise<void>((resolve) => {
      wake = resolve;
      this.held.add(resolve);
    });
    await Promise.race([delay, released]);
    if (wake) this.held.delete(wake);
  }
}

export class FaultTable {
  private readonly faults: Fault[] = [];
  private readonly closing = new AbortController();

  add(spec: FaultSpec): FaultHandle {
    const f = new Fault(spec);
    if (this.closing.signal.aborted) f.armed = false;
    this.faults.push(f);
    return f;
  }

  /**
   * Picks the fault for `record`, counts the hit and sets `record.fault`; returns the action to run
   * (after the record is published), or undefined for an immediate OK.
   */
  take(record: NriEventRecord): (() => Promise<FaultOutcome>) | undefined {
    const f = this.faults.find(
      (x) =>
        x.armed &&
        matchesEvent(record, x.spec.match) &&
        (x.spec.times === undefined || x.hits < x.spec.times),
    );
    if (!f) return undefined;
    f.hits++;
    record.fault = f.spec.action.kind;
    return async () => {
      f.acted.record(record);
      return f.track(() => this.act(f, record));
    };
  }

  /** Releases every hold, cuts every delay short and disarms all faults (the plugin is closing). */
  releaseAll(): void {
    this.closing.abort();
    for (const f of this.faults) f.remove('its plugin closed');
  }

  private async act(f: Fault, record: NriEventRecord): Promise<FaultOutcome> {
    const action = f.spec.action;
    switch (action.kind) {
      case 'error':
        return { reply: 'error', message: action.message ?? `cri-conform injected error on ${record.event}` };
      case 'crash':
        return { reply: 'crash' };
      case 'delay':
        // Released early by a check whose hold must end after an event of its own, not on a clock.
        await f.holdAtMost(this.sleep(action.ms));
        return { reply: 'ok' };
      case 'hang': {
        if (this.closing.signal.aborted) return { reply: 'ok' };
        const since = performance.now();
        await f.hold();
        return this.closing.signal.aborted
          ? { reply: 'ok', hungUntilClosedMs: performance.now() - since }
          : { reply: 'ok' };
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    const signal = this.closing.signal;
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
