/**
 * Waiting with a deadline. Every wait names what it waits for, so a timeout says what never happened.
 * Polls are short and bounded; they are for CRI state, which has no events.
 */
import { ContractViolation, WaitTimeout } from './errors.js';

export interface PollOpts {
  withinMs: number;
  what: string;
  everyMs?: number;
  signal?: AbortSignal;
}

/**
 * What a probe returns while its condition does not hold yet, naming what it saw: a timeout then says
 * what the last look found (an exec's exit code and output, a state), so set-up and runtime can be told
 * apart. Returning false or undefined works too, but leaves the timeout with nothing to show.
 */
export class NotYet {
  constructor(readonly seen: string) {}
}
export const notYet = (seen: string): NotYet => new NotYet(seen);

export type Probe<T> = () => Promise<T | undefined | false | NotYet>;

export async function poll<T>(probe: Probe<T>, opts: PollOpts): Promise<T> {
  const everyMs = opts.everyMs ?? 50;
  const endAt = Date.now() + opts.withinMs;
  let last = 'no look finished';
  for (;;) {
    opts.signal?.throwIfAborted();
    try {
      const value = await probe();
      if (value instanceof NotYet) last = `last seen: ${value.seen}`;
      else if (value !== undefined && value !== false) return value;
      else last = `last look: ${value === false ? 'false' : 'nothing'}`;
    } catch (e) {
      last = `last probe error: ${e instanceof Error ? e.message : String(e)}`;
    }
    if (Date.now() >= endAt) {
      throw new WaitTimeout(`timed out after ${opts.withinMs} ms waiting for ${opts.what} (${last})`);
    }
    await sleep(Math.min(everyMs, Math.max(0, endAt - Date.now())), opts.signal);
  }
}

/**
 * Asserts that `probe` holds at every look over the window; fails (ContractViolation) at the first look
 * where it does not. A probe that throws ends the wait with its error.
 */
export async function holdsFor(
  probe: () => Promise<boolean> | boolean,
  windowMs: number,
  what: string,
  signal?: AbortSignal,
  everyMs = 50,
): Promise<void> {
  const endAt = Date.now() + windowMs;
  for (;;) {
    signal?.throwIfAborted();
    const startedAt = Date.now();
    if (!(await probe())) {
      const at = windowMs - Math.max(0, endAt - startedAt);
      throw new ContractViolation(
        `expected ${what} to hold for ${windowMs} ms, but it did not after ${at} ms`,
      );
    }
    if (Date.now() >= endAt) return;
    await sleep(Math.min(everyMs, endAt - Date.now()), signal);
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
