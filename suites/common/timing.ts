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

export const FIRST_DEADLINE_MS = 500;
/**
 * How long after its deadline the client of a timed-out first attempt gives up. Until then only the
 * runtime's own copy of the deadline (sent in the request) can end the call, so the runtime sees the
 * deadline expire every time instead of a race between that and the client's cancel.
 */
export const LATE_CANCEL_MS = 150;
/** The explicit client cancel of IDEM-12 comes this long after the call started (the build is under way). */
export const CANCEL_AFTER_MS = 400;
/**
 * A cancel that must land in an NRI hook comes this long after the hold was reached, however long the
 * call took to get there (a sandbox's hook comes after its network setup, which a busy node may take more
 * than CANCEL_AFTER_MS for).
 */
export const CANCEL_IN_HOOK_MS = 100;
/** Past this, a cancel meant for a hook comes anyway: the hook was never reached (the attempt missed). */
const CANCEL_IN_HOOK_LATEST_MS = 2_000;

/**
 * How long a hold of a creation lasts past the moment the client has surely given up (its deadline plus
 * the late cancel), whether an NRI hook or an injector holds it: the runtime must meet the expired call
 * while the creation is still held, and a runtime that takes it for a broken plugin must drop the plugin
 * within it. Measured on containerd 1.7.24 and 2.1.9 (`node scripts/bench-holds.mjs`, README "Race
 * checks"): the held call's reply came at most 657 ms after it was sent (its deadline 500 ms, the late
 * cancel at 650 ms), and the drop came within 52 ms of the reply.
 */
export const HOLD_MARGIN_MS = 100;

/**
 * The creation delay the injectors add (the slow runtime handler before its runc create, the slow CNI on
 * ADD): it starts only once the runtime reaches the injector, after the send, so a delay that lasts until
 * the client has surely given up, plus the margin, holds the build past every deadline and cancel of a
 * first attempt (a cancel comes at CANCEL_AFTER_MS, sooner). It was 1.5 s; the extra second tested
 * nothing more and every trial, retry budget and hold waited it out.
 */
export const DELAY_MS = FIRST_DEADLINE_MS + LATE_CANCEL_MS + HOLD_MARGIN_MS;

/**
 * How long kubelet-like retries may take to converge once the timed-out build has ended, before the
 * margin. It is the old creation delay, kept when the delay shrank: how soon a runtime must converge is a
 * matter of the contract, not of how long the check held the build.
 */
export const CONVERGE_WITHIN_MS = 1_500;

/**
 * How much longer kubelet-like retries go on, past their budget, while the runtime lists nothing under the
 * request's name: the timed-out build, or its rollback, is still going. A rollback is a teardown, and a
 * loaded node takes seconds for one (containerd 2.1.9 kept a cancelled sandbox's name for over 4.5 s on
 * these two-core machines while listing nothing under it); a kubelet keeps retrying through it. A name
 * still refused when this has passed is held by something stuck, and the check says so.
 */
export const SETTLE_WITHIN_MS = 15_000;

/**
 * The longest deadline a kubelet-like retry grows to once one before it was cut off by its own deadline
 * while the runtime built it. A kubelet gives a RunPodSandbox minutes; the check's 4.5 s retries, cut off
 * one after another on a loaded two-core VM (containerd 2.1.9 at load 25 took longer than that to build a
 * sandbox), each left a build holding the name for the next, and IDEM-01 failed for the check's deadlines.
 */
export const RETRY_GROWS_TO_MS = 15_000;

/**
 * How long before the runtime's plugin request timeout a hook's hold must end: past it, the runtime may
 * end the hold for its own reasons, and the hold no longer tests what the check says.
 */
export const NRI_TIMEOUT_CLEARANCE_MS = 500;

/**
 * An NRI delay that a creation's deadline (or cancel) must expire in: until the client has surely given up
 * (its deadline and the late cancel, or its cancel), and the margin. It must stay clear of the
 * runtime's plugin request timeout (which would end the hold for the runtime's own reasons), else the check
 * skips, saying so. Holds take turns (t.oneAtATime), so this is the price of every trial.
 */
export function nriHoldMs(t: CheckContext, what: string, ending: 'deadline' | 'cancel' = 'deadline'): number {
  const holdMs = nriHoldFor(ending);
  const longest = nriHoldFor('deadline');
  if (t.settings.nriRequestTimeoutMs - NRI_TIMEOUT_CLEARANCE_MS < longest)
    t.skip(
      `--nri-request-timeout ${t.settings.nriRequestTimeoutMs} ms is too short to hold ${what} ${longest} ms, past a ${FIRST_DEADLINE_MS} ms deadline (it takes at least ${longest + NRI_TIMEOUT_CLEARANCE_MS} ms)`,
    );
  return holdMs;
}

/**
 * How long an NRI hold lasts for a first attempt the client ends by its deadline (counted from the send,
 * which the hold outlasts whenever the hook is reached after it) or by a cancel (counted from the hook).
 */
export function nriHoldFor(ending: 'deadline' | 'cancel'): number {
  const gaveUpMs = ending === 'deadline' ? FIRST_DEADLINE_MS + LATE_CANCEL_MS : CANCEL_IN_HOOK_MS;
  return gaveUpMs + HOLD_MARGIN_MS;
}

/**
 * A cancel for a call held in an NRI hook: CANCEL_IN_HOOK_MS after `reached` resolves, or at
 * CANCEL_IN_HOOK_LATEST_MS (plus `lateMs`, where the hook was seen reached later) when it never does.
 * `cancelledAt()` says when it came (performance.now()). With `releaseHold`, the hold ends by the cancel,
 * never on a clock of its own: on a starved event loop, two timers due at once would answer the hook
 * before the cancel left (its RST_STREAM is written a loop turn later), and the cancel would land after
 * the hook, testing something else.
 */
export function cancelInHook(
  reached: Promise<unknown>,
  lateMs = 0,
  /** Answers the held hook: called HOLD_MARGIN_MS after the cancel, so the hook never answers first. */
  releaseHold?: () => void,
): {
  signal: AbortSignal;
  cancelledAt(): number | undefined;
} {
  const inHook = new AbortController();
  reached.then(
    () =>
      AbortSignal.timeout(CANCEL_IN_HOOK_MS).addEventListener('abort', () => inHook.abort(), { once: true }),
    () => undefined,
  );
  const signal = AbortSignal.any([inHook.signal, AbortSignal.timeout(CANCEL_IN_HOOK_LATEST_MS + lateMs)]);
  let at: number | undefined;
  signal.addEventListener(
    'abort',
    () => {
      at = performance.now();
      if (releaseHold)
        AbortSignal.timeout(HOLD_MARGIN_MS).addEventListener('abort', releaseHold, { once: true });
    },
    { once: true },
  );
  return { signal, cancelledAt: () => at };
}
