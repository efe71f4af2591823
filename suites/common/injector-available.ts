/** Whether an injector is configured, for checks that spread their variants over what the run offers. */
import { SkipSignal } from '../../src/harness/errors.js';

/** Calls the injector getter; false (with the reason) when it would skip the check, as unconfigured. */
export function injectorAvailable(get: () => unknown): { ok: true } | { ok: false; why: string } {
  try {
    get();
    return { ok: true };
  } catch (e) {
    if (e instanceof SkipSignal) return { ok: false, why: e.message };
    throw e;
  }
}
