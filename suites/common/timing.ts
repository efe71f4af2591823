/**
 * Every bound a hooks or teardown check waits for, derived from the run's settings: the runtime's plugin
 * request timeout (as the runtime sent it in Configure; --nri-request-timeout only for a runtime that sends
 * none) and the margin for scheduling noise. Nothing here is a guess about one runtime.
 */
import type { CheckContext, NriEventRecord } from '../../src/harness/face.js';

/**
 * How long to wait for an event that the runtime owes for a call it has already answered (or for a hook
 * to be reached after the call was sent): the plugin's request timeout plus the margin. Only a failing
 * runtime waits this long.
 */
export function deliveryWithinMs(t: CheckContext): number {
  return t.settings.nriRequestTimeoutMs + t.settings.marginMs;
}

/**
 * The window over which an absence is asserted after the call that could have caused the event returned.
 * Runtimes deliver hooks inside the call, so an event owed to that call is normally recorded before its
 * reply; the window only covers a late, asynchronous delivery: a quarter of the plugin request timeout,
 * never more than the margin.
 */
export function quietWindowMs(t: CheckContext): number {
  return Math.min(Math.floor(t.settings.nriRequestTimeoutMs / 4), t.settings.marginMs);
}

/**
 * The deadline for one CRI probe made while the check holds a hook. The runtime times the hook out at its
 * own deadline (the event's timeout, else the plugin request timeout) and then goes on as if the plugin
 * had answered, so everything the check looks at during a hold must fit well inside that deadline.
 */
export function probeWhileHeldMs(t: CheckContext, held: NriEventRecord): number {
  const runtimeDeadlineMs = Math.min(
    held.timeoutMs ?? t.settings.nriRequestTimeoutMs,
    t.settings.nriRequestTimeoutMs,
  );
  return Math.max(1, Math.floor(runtimeDeadlineMs / 4));
}

/** TEAR-04's bound: a teardown call with a hung or crashed plugin returns within this. */
export function teardownBoundMs(t: CheckContext): number {
  return t.settings.nriRequestTimeoutMs + t.settings.marginMs;
}

/** How teardownBoundMs came about, for a message: "request timeout 6000 ms (sent by ...) + margin 3000 ms". */
export function describeTeardownBound(t: CheckContext): string {
  const { nriRequestTimeoutMs, nriRequestTimeoutFrom, marginMs } = t.settings;
  return `request timeout ${nriRequestTimeoutMs} ms (${nriRequestTimeoutFrom}) + margin ${marginMs} ms`;
}

/** The client deadline for a call whose latency is being bounded: the bound plus one margin, so a blocked call fails fast. */
export function boundedCallDeadlineMs(t: CheckContext): number {
  return teardownBoundMs(t) + t.settings.marginMs;
}

/** The injected creation delay: well above the first attempt's deadline, so the deadline expires mid-build. */
export const DELAY_MS = 1_500;
export const FIRST_DEADLINE_MS = 500;
/**
 * How long after its deadline the client of a timed-out first attempt gives up. Until then only the
 * runtime's own copy of the deadline (sent in the request) can end the call, so the runtime sees the
 * deadline expire every time instead of a race between that and the client's cancel.
 */
export const LATE_CANCEL_MS = 150;
/** The explicit client cancel of IDEM-12 comes this long after the call started (the build is under way). */
export const CANCEL_AFTER_MS = 400;
