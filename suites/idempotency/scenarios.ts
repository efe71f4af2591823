/**
 * The kubelet's timeout-and-retry pattern as the idempotency checks drive it: a creation delay holds the
 * first request past its client deadline (or past a client cancel), the delay is lifted, and the identical
 * request is sent again with back-off until it succeeds or the budget is spent.
 *
 * The delay is lifted after the first attempt because the slowness the kubelet meets is transient: a
 * runtime that builds every request anew can only converge once it is fast again, while a runtime that
 * keeps the timed-out build serves it to the retry (IDEM-03). Only the first attempt races the delay.
 */
import {
  type CallOpts,
  type CallResult,
  type CheckContext,
  type CreationDelay,
  type CriMethod,
  type CriRequest,
  type CriResponse,
  describeAttempts,
  type PodSandboxConfig,
  type ReachWatch,
  type RetryOutcome,
  type RetryPolicy,
  type RunPodRequest,
  type SlowRuntime,
  shortId,
} from '../../src/harness/face.js';
import { describeItems } from '../common/census.js';
import { endHoldAfterSend } from '../common/hold-from-send.js';
import {
  CANCEL_AFTER_MS,
  CANCEL_IN_HOOK_MS,
  cancelInHook,
  DELAY_MS,
  FIRST_DEADLINE_MS,
  HOLD_MARGIN_MS,
  LATE_CANCEL_MS,
  nriHoldFor,
} from '../common/timing.js';
import { kubeletRetry } from './kubelet-retry.js';
import { claimAbandoned, lateFor, lateReach } from './late-reach.js';
import { retryBuildsNamedIn } from './retry-builds.js';

/** How the first attempt ends: its own deadline, or the client cancelling it (IDEM-12). */
export type Ending = 'deadline' | 'cancel';

/**
 * Why the timeout checks held by the injectors may run beside the checks whose holds take turns in the
 * hook lane (CheckSpec.besideHeldHooks).
 */
export const SIDE_BY_SIDE_WITH_HOLDS =
  "its timeouts land in the runtime's create or network setup, which runtimes run before a sandbox's NRI hook, and a container's (the slow handler's runc create) waits for no held hook (t.noHeldHooks); a retry or removal that waits behind a held hook waits at most one hold, far inside its deadline and budget";

/** A delay that holds sandbox creation: the slow runtime handler, the slow CNI wrapper, or an NRI hook. */
export interface Delay extends HeldBy {
  /** The handler the request must name for the delay to act ('' = the run's default handler). */
  runtimeHandler: string;
}

/** What holds a first attempt, and for how long. */
export interface HeldBy {
  name: string;
  /** Sets the delay (0 lifts it); `podName` names the pod it is for, for a delay that acts per pod. */
  setDelay(ms: number, podName?: string): Promise<void>;
  /** How long it holds the request (default DELAY_MS; a hold of an NRI hook: as long as the ending needs). */
  holdMs?: number;
  /**
   * For a hold of an NRI hook: resolves once the hook is answered, with when it was reached
   * (performance.now(); undefined when never). The runtime delivers hooks one at a time across all pods,
   * so the held attempt takes its turn (t.oneAtATime) until then.
   */
  holdEnded?: () => Promise<{ reachedAt?: number }>;
  /** For a hold of an NRI hook: resolves once the hook is reached (a cancel is sent into it then). */
  holdReached?: () => Promise<unknown>;
  /** For a hold of an NRI hook: answers the hook now (a cancel's hold ends by it: cancelInHook). */
  releaseHold?: () => void;
  /**
   * For a check whose path is where the timeout lands (IDEM-14): watches for the attempt reaching the
   * delay, which must happen before the client gives up. Checks that need only a timeout somewhere in the
   * build (IDEM-01, IDEM-12) leave it out: a busy node's setup that outlasts the deadline is such a timeout.
   */
  watchReach?: () => ReachWatch;
  /**
   * The delay sits behind the call's NRI hook in some runtimes (a container's runc create, which CRI-O runs
   * after the CreateContainer hook): the attempt runs while no hook is held (t.noHeldHooks), or it could
   * wait behind a held hook and time out there instead of in the delay.
   */
  behindHooks?: boolean;
}

/**
 * A first attempt's outcome, when it was sent (performance.now()) and how long its delay held it, for the
 * back-off after it.
 */
export type FirstAttempt<T> = CallResult<T> & {
  sentAt?: number;
  /** The deadline it was sent with (FIRST_DEADLINE_MS, more where setup was seen to outlast that). */
  deadlineMs?: number;
  holdMs?: number;
  heldUntil?: number;
  /** Where a delay watched for its reach (HeldBy.watchReach) was reached only after the client gave up: why. */
  missedDelay?: string;
  /** With missedDelay: the next first attempt on that delay gives up later than this one did. */
  laterNext?: boolean;
};

/** The slow runtime handler as a Delay, for checks that also need its record of created ids. */
export function slowHandlerDelay(slow: SlowRuntime): Delay {
  return {
    name: `slow runtime handler "${slow.handler}"`,
    runtimeHandler: slow.handler,
    setDelay: slow.setDelay,
  };
}

/** The delay trial `trial` (1-based) uses: the configured paths in turn, so the trials cover each. */
export function pathFor<T>(delays: readonly T[], trial: number): T {
  const delay = delays[(trial - 1) % delays.length];
  if (delay === undefined) throw new Error('no creation delay to spread over the trials');
  return delay;
}

/** A retry's outcome with its value reduced to the id it carries. */
export function idOf<T>(outcome: RetryOutcome<T>, pick: (v: T) => string): RetryOutcome<string> {
  return outcome.value === undefined
    ? { attempts: outcome.attempts }
    : { attempts: outcome.attempts, value: pick(outcome.value) };
}

/**
 * One line of evidence: how the first attempt ended and what each retry got. The first attempt's outcome
 * is the one the timeline and the HTML report show for that call; an answer that came only after the
 * deadline says so, since a kubelet had given up by then.
 */
export function evidence(first: FirstAttempt<unknown>, outcome?: RetryOutcome<unknown>): string {
  const ms = Math.round(first.latencyMs);
  const reply = first.ok ? `first OK ${ms}ms` : `first ${first.code} ${ms}ms`;
  const head = first.missedDelay ? `${reply}, ${first.missedDelay}` : reply;
  const full = answeredPastDeadline(first)
    ? `${head} (answered past its ${first.deadlineMs ?? FIRST_DEADLINE_MS} ms deadline: a kubelet had given up with DEADLINE_EXCEEDED)`
    : head;
  return outcome ? `${full}; retries: ${describeAttempts(outcome.attempts) || 'none'}` : full;
}

/**
 * A reply that came after the deadline, because the client cancels late (LATE_CANCEL_MS), is one a kubelet
 * never sees: it gave up at its deadline, whatever the runtime answered then (OK for a build it finished
 * anyway, or its own error about the expired deadline).
 */
function answeredPastDeadline(reply: FirstAttempt<unknown>): boolean {
  if (reply.latencyMs < (reply.deadlineMs ?? FIRST_DEADLINE_MS)) return false;
  return reply.ok || (reply.code !== 'DEADLINE_EXCEEDED' && reply.code !== 'CANCELLED');
}

/**
 * Sends the first attempt with the delay set and ends it by deadline or cancel, then lifts the delay.
 * When the delay did not hold the request, `notHeld` decides: by default an ERROR (the injector is broken,
 * so nothing about the runtime was decided). A first attempt that the runtime answered with an error of
 * its own is an ERROR too: the scenario (a timed-out build) never came about.
 */
export async function firstAttempt<M extends CriMethod>(
  t: CheckContext,
  what: string,
  delay: HeldBy,
  ending: Ending,
  call: { method: M; request: CriRequest<M> },
  notHeld: (why: string) => never = (why) => setupFailed(t, why),
): Promise<FirstAttempt<CriResponse<M>>> {
  const send = (opts: CallOpts) => t.cri.tryCall(call.method, call.request, opts);
  // What reaches the delay late is the runtime's setup before it, which differs by call: keyed by both.
  const reachKey = `${what.split(' ')[0]} ${delay.name}`;
  const lateMs = lateFor(t, reachKey, delay, ending);
  // Once a miss was learnt: whether the next first attempt on this delay gives up later than this one.
  const laterNext = () => lateFor(t, reachKey, delay, ending) > lateMs;
  // A hook's hold counts from the hook, and a later deadline must still expire inside it. A cancel's hold
  // that the cancel ends may run as long as the longest hold, which fits the plugin request timeout.
  const cancelEndsHold = ending === 'cancel' && delay.releaseHold !== undefined;
  const holdMs = delay.holdEnded
    ? nriHoldFor(cancelEndsHold ? 'deadline' : ending) + (ending === 'deadline' ? lateMs : 0)
    : (delay.holdMs ?? DELAY_MS) + lateMs;
  const [deadlineMs, cancelAfterMs] = [FIRST_DEADLINE_MS + lateMs, CANCEL_AFTER_MS + lateMs];
  let reach: ReachWatch | undefined;
  const attempt = async (): Promise<FirstAttempt<CriResponse<M>>> => {
    await delay.setDelay(holdMs);
    reach = delay.watchReach?.();
    // The cancel's timer starts with the call, not before a wait for the lane; one meant for a hook comes
    // once the hook holds the call.
    const inHook =
      ending === 'cancel' && delay.holdReached
        ? cancelInHook(delay.holdReached(), lateMs, delay.releaseHold)
        : undefined;
    const opts: CallOpts =
      ending === 'deadline'
        ? { deadlineMs, cancelLateByMs: LATE_CANCEL_MS }
        : { signal: inHook?.signal ?? AbortSignal.timeout(cancelAfterMs) };
    const how =
      ending === 'deadline'
        ? `its ${deadlineMs} ms deadline (the runtime's copy expires first; the client gives up ${LATE_CANCEL_MS} ms later)`
        : inHook
          ? `a cancel ${CANCEL_IN_HOOK_MS} ms after the hook holds it`
          : `a cancel after ${cancelAfterMs} ms`;
    const holding = cancelEndsHold
      ? `until ${HOLD_MARGIN_MS} ms after the cancel (at most ${holdMs} ms)`
      : delay.releaseHold
        ? `until ${holdMs} ms after the send`
        : `${holdMs} ms`;
    t.step(`${what} with the ${delay.name} holding it ${holding}; the client ends it by ${how}`);
    const sentAt = performance.now();
    // A deadline's hold need outlast the client's give-up only, which counts from the send: a cancel's
    // ends by the cancel (cancelInHook).
    const stopHoldClock = ending === 'deadline' ? endHoldAfterSend(delay, sentAt, holdMs) : undefined;
    const reply = await send(opts);
    const hold = await delay.holdEnded?.();
    stopHoldClock?.();
    const heldUntil = hold ? performance.now() : undefined;
    await delay.setDelay(0);
    if (hold) {
      // The scenario is an expired deadline (or a cancel) inside the hook: one reached only after the
      // client gave up tested something else.
      const gaveUpAt = ending === 'deadline' ? sentAt + deadlineMs : inHook?.cancelledAt();
      if (hold.reachedAt !== undefined && gaveUpAt !== undefined && hold.reachedAt < gaveUpAt)
        lateReach.landed(t, reachKey, hold.reachedAt - sentAt);
      else {
        lateReach.learn(
          t,
          reachKey,
          lateMs,
          hold.reachedAt === undefined ? undefined : hold.reachedAt - sentAt,
        );
        await claimAbandoned(t, what, () => t.cri.retry(call.method, call.request, kubeletRetry(t)));
        t.missed(
          `the ${delay.name} was ${hold.reachedAt === undefined ? 'never reached' : `reached only ${Math.round(hold.reachedAt - sentAt)} ms after ${what} was sent`}, after its client had given up: the ${ending} did not land in the hook`,
          laterNext(),
        );
      }
    }
    return { ...reply, sentAt, deadlineMs, holdMs, ...(heldUntil === undefined ? {} : { heldUntil }) };
  };
  const first = delay.holdEnded
    ? await t.oneAtATime(`held ${what}`, attempt)
    : delay.behindHooks
      ? await t.noHeldHooks(attempt)
      : await attempt();
  // The reply is kept as the runtime gave it (the timeline shows that same outcome); one that came past
  // the deadline ended for a kubelet at the deadline (answeredPastDeadline).
  const endedByClient =
    (ending === 'deadline' && answeredPastDeadline(first)) ||
    // An expired deadline can arrive as CANCELLED: the server resets the stream as its own deadline passes.
    (!first.ok && (first.code === 'DEADLINE_EXCEEDED' || first.code === 'CANCELLED'));
  if (first.ok && !endedByClient)
    notHeld(`the ${delay.name} did not hold ${what}: it returned OK after ${Math.round(first.latencyMs)} ms`);
  t.require(
    endedByClient,
    `${what} was expected to end by the client's ${ending}, but the runtime answered ${first.ok ? 'OK' : `${first.code}: ${first.message}`}`,
  );
  if (!reach || first.sentAt === undefined) return first;
  const reached = await reach();
  const gaveUpAt = first.sentAt + (ending === 'deadline' ? deadlineMs : cancelAfterMs);
  const missedDelay = landedBeforeDelay(delay.name, ending, first.sentAt, gaveUpAt, reached);
  if (!missedDelay) {
    if (typeof reached === 'object') lateReach.landed(t, reachKey, reached.atMs - first.sentAt);
    return first;
  }
  lateReach.learn(t, reachKey, lateMs, typeof reached === 'object' ? reached.atMs - first.sentAt : undefined);
  return { ...first, missedDelay, laterNext: laterNext() };
}

/**
 * Why the first attempt's deadline (or cancel) did not come while the delay held it ('' when it did). On a
 * busy node the runtime's setup before the delay (network, shim start) can outlast the deadline: that
 * timeout landed earlier in the build, not in the path the check names. The check still judges what it
 * left (a timeout anywhere in the build is the contract's), and says where it landed; a trial that passes
 * so runs again (leftoversAfterTimeout), so that every clean trial counted for a path tested that path.
 */
function landedBeforeDelay(
  delayName: string,
  ending: Ending,
  sentAt: number,
  gaveUpAt: number,
  reach: Awaited<ReturnType<ReachWatch>>,
): string {
  if (reach === 'untimed') return '';
  if (reach !== 'not reached' && reach.atMs < gaveUpAt) return '';
  const when =
    // Looked at once the reply came: the runtime may still reach it later, with the delay lifted by then.
    reach === 'not reached'
      ? 'not by the time the reply came'
      : `it was ${Math.round(reach.atMs - sentAt)} ms after the send`;
  return `the ${ending} came before the ${delayName} was reached (${when})`;
}

/** Ends the check in ERROR: the scenario could not be set up. */
function setupFailed(t: CheckContext, why: string): never {
  t.require(false, why);
}

export interface TimedOutPod {
  config: PodSandboxConfig;
  request: RunPodRequest;
  first: FirstAttempt<{ podSandboxId: string }>;
}

/** A RunPodSandbox whose client gave up while the runtime was still building it. */
export async function timeOutRunPod(
  t: CheckContext,
  name: string,
  delay: Delay,
  ending: Ending = 'deadline',
): Promise<TimedOutPod> {
  const config = t.make.pod(name);
  const request = t.cri.runPodRequest(config, delay.runtimeHandler);
  const forThisPod = { ...delay, setDelay: (ms: number) => delay.setDelay(ms, config.metadata.name) };
  const first = await firstAttempt(t, `RunPodSandbox ${config.metadata.name}`, forThisPod, ending, {
    method: 'RunPodSandbox',
    request,
  });
  return { config, request, first };
}

/**
 * Sends `what` again and again through `send` (kubelet-like policy) and asserts that it converges, as the
 * check's `clause`. The evidence line tells how the first attempt ended and what every retry got.
 */
export async function converge<T>(
  t: CheckContext,
  clause: string,
  what: string,
  first: CallResult<unknown>,
  send: (policy: RetryPolicy) => Promise<RetryOutcome<T>>,
  listed?: () => Promise<string>,
): Promise<{ value: T; evidence: string }> {
  t.step(`${what}, kubelet-like retries`);
  const policy = kubeletRetry(t);
  const outcome = await send(policy);
  const line = evidence(first, outcome);
  if (outcome.value === undefined) {
    const seen = listed ? `; the runtime lists ${await listed()}` : '';
    const withinMs = policy.budgetMs + (outcome.settlingMs ?? 0);
    // What holds the name may be a retry's own build, cut off in turn (containerd 2.1.9 kept one listed
    // NOTREADY under the name after its rollback failed): said last, after the retries it names.
    const madeBy = retryBuildsNamedIn(seen, outcome.attempts);
    t.expect(false, `${what} did not converge within ${withinMs} ms${seen}: ${line}${madeBy}`, clause);
  }
  return { value: outcome.value, evidence: line };
}

/**
 * Retries the identical RunPodSandbox like the kubelet and asserts that it converges (as `clause`); returns
 * its id.
 */
export async function retryRunPod(
  t: CheckContext,
  timedOut: TimedOutPod,
  clause: string,
): Promise<{ podId: string; evidence: string }> {
  const what = `the identical RunPodSandbox ${timedOut.config.metadata.name}`;
  const name = timedOut.config.metadata.name;
  const done = await converge(
    t,
    clause,
    what,
    timedOut.first,
    (p) => t.cri.retry('RunPodSandbox', timedOut.request, p),
    async () => `${describeItems(await t.cri.listPods({ name }))} with that name`,
  );
  return { podId: done.value.podSandboxId, evidence: done.evidence };
}

/** IDEM-01's scenario: time out, retry until it converges (asserted as `clause`). */
export async function runPodAfterTimeout(
  t: CheckContext,
  name: string,
  delay: Delay,
  clause: string,
  ending: Ending = 'deadline',
): Promise<TimedOutPod & { podId: string; evidence: string }> {
  const timedOut = await timeOutRunPod(t, name, delay, ending);
  await kubeletBackoff(t, timedOut.first);
  return { ...timedOut, ...(await retryRunPod(t, timedOut, clause)) };
}

/**
 * The kubelet does not retry at once: the pod worker backs off (seconds) before the next sync, and by then
 * the timed-out build has usually ended. Waiting that out makes the retry meet what the runtime did with
 * the finished build (kept, rolled back, or published and forgotten: a duplicate), not only the build
 * in progress (NAME-01 covers requests that overlap).
 */
export async function kubeletBackoff(t: CheckContext, first: FirstAttempt<unknown>): Promise<void> {
  // The build ends when the hold does: a hook's hold was waited out (heldUntil), an injector's is counted
  // from the send.
  const heldUntil =
    first.heldUntil ??
    (first.sentAt === undefined
      ? performance.now() - first.latencyMs + (first.holdMs ?? DELAY_MS)
      : first.sentAt + (first.holdMs ?? DELAY_MS));
  const leftMs = Math.round(heldUntil + 100 - performance.now());
  if (leftMs > 0)
    await t.pause(leftMs, 'kubelet-like back-off: the first retry comes after the timed-out build has ended');
}

/**
 * Waits until the delay logs what the timed-out request built (an id not in `before`): the proof that its
 * build reached the runtime's create before the retry is sent. A loaded runtime may drop a build whose
 * client left before it got there; the retry's own create would then be the only one logged, and a check
 * of reuse would pass having tested nothing. Undefined when nothing is logged within the window.
 */
export async function buildReachedCreate(
  t: CheckContext,
  logged: () => Promise<string[]>,
  before: ReadonlySet<string>,
): Promise<string | undefined> {
  return t
    .poll(async () => (await logged()).find((id) => !before.has(id)), {
      withinMs: DELAY_MS + t.settings.marginMs,
      what: "the timed-out request's build to reach the runtime's create (the slow runtime handler's log)",
    })
    .catch(() => undefined);
}

/**
 * Asserts that the runtime built exactly one object for the logical request (per the slow handler's log)
 * and served it to the retry, as the check's `clause`.
 */
export function expectReused(
  t: CheckContext,
  built: readonly string[],
  served: string,
  kind: string,
  line: string,
  clause: string,
): void {
  const first = built[0];
  t.require(
    first !== undefined,
    `the slow runtime handler logged no create for the timed-out request, so what it built is unknown (${line})`,
  );
  t.expect(
    first === served && built.length === 1,
    `timed-out call built ${shortId(first)}, retry got ${shortId(served)}; the runtime built ${built.length} ${kind} (${built
      .map(shortId)
      .join(', ')}) for one logical request instead of reusing the first (${line})`,
    clause,
  );
}

/**
 * The ids the delay logged since now, oldest first: the slow runtime handler logs each create, the slow
 * CNI each ADD (with the sandbox id), so the first is what the timed-out request built.
 */
export function idsBuiltBy(t: CheckContext, delay: CreationDelay): () => Promise<string[]> {
  if (delay.createdIds) return delay.createdIds;
  t.require(t.inject.offers('slow-cni') === undefined, `the ${delay.name} logs no ids`);
  const cni = t.inject.slowCni();
  return async () => [...(await cni.added()).values()];
}
