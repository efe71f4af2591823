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

export async function poll<T>(probe: () => Promise<T | undefined | false>, opts: PollOpts): Promise<T> {
  const everyMs = opts.everyMs ?? 50;
  const endAt = Date.now() + opts.withinMs;
  let lastError: unknown;
  for (;;) {
    opts.signal?.throwIfAborted();
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      lastError = undefined;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= endAt) {
      const why = lastError instanceof Error ? ` (last probe error: ${lastError.message})` : '';
      throw new WaitTimeout(`timed out after ${opts.withinMs} ms waiting for ${opts.what}${why}`);
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
