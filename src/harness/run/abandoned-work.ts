/**
 * What a check cut short leaves behind. A check that starts a call and awaits something else first (NAME-01
 * sends two RunPodSandbox and awaits the hold before either) has promises nobody awaits once its deadline or
 * the run's stop aborts it; they reject with the abort's reason. Node ends the process on a rejection that
 * nobody handles, which took a whole run down (exit 1, no reports) for a check already judged an ERROR.
 * Such rejections are dropped; any other still ends the process, as Node would.
 */

/** The reasons checks were aborted with: a rejection carrying one is abandoned work, not a fault. */
const abortReasons = new WeakSet<object>();
let listening = false;

/** Registers `reason` as an abort's, before the abort, so that what it rejects is taken as abandoned. */
export function abortingWith<T>(reason: T): T {
  if (typeof reason === 'object' && reason !== null) abortReasons.add(reason);
  if (!listening) {
    listening = true;
    process.on('unhandledRejection', dropAbandoned);
  }
  return reason;
}

function dropAbandoned(reason: unknown): void {
  if (!isAbandoned(reason)) throw reason;
}

/** The reason itself, or what it wraps (timers/promises and AbortSignal.any reject with an AbortError whose cause is the reason). */
export function isAbandoned(reason: unknown, depth = 0): boolean {
  if (typeof reason !== 'object' || reason === null || depth > 3) return false;
  return abortReasons.has(reason) || isAbandoned((reason as { cause?: unknown }).cause, depth + 1);
}
