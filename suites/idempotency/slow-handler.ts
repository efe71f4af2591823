/**
 * A request timed out on the slow runtime handler, with the id of what its build made: the start of the
 * checks that go on with a held build (IDEM-04, IDEM-07, IDEM-08, IDEM-09, IDEM-10).
 */
import type { CallResult, CheckContext, SlowRuntime } from '../../src/harness/face.js';
import { DELAY_MS, FIRST_DEADLINE_MS } from '../common/timing.js';
import { kubeletRetry } from './kubelet-retry.js';
import { claimAbandoned } from './late-reach.js';
import {
  type Delay,
  type FirstAttempt,
  idsBuiltBy,
  slowHandlerDelay,
  type TimedOutPod,
  timeOutRunPod,
} from './scenarios.js';

/** How many first attempts untilHandlerHeld makes, at most, until one lands in the handler. */
const SLOW_HANDLER_TRIES = 3;

/**
 * A RunPodSandbox timed out on the slow runtime handler, with the id the timed-out call built (the
 * handler logs every create; a sandbox's id is its pause container's id). The request is not retried.
 */
export async function timeOutOnSlowHandler(
  t: CheckContext,
  name: string,
): Promise<TimedOutPod & { builtId: string }> {
  const slow = t.inject.slowRuntime();
  const delay: Delay = { ...slowHandlerDelay(slow), watchReach: slow.watchReach };
  const { timedOut, before } = await untilHandlerHeld(t, slow, {
    timeOut: () => timeOutRunPod(t, name, delay),
    what: (pod) => `RunPodSandbox ${pod.config.metadata.name}`,
    resend: (pod) => t.cri.retry('RunPodSandbox', pod.request, kubeletRetry(t)),
    fresh: 'a new pod',
  });
  return { ...timedOut, builtId: await timedOutId(t, slow, timedOut.first, before) };
}

/**
 * Times a request out on the slow runtime handler (`timeOut`, with the handler's reach watched) until an
 * attempt lands in it, SLOW_HANDLER_TRIES times at most; with the handler's log as it was before the
 * attempt that is returned. A first attempt that gave up before the runtime reached the handler (a loaded
 * node's setup) held no build: its request is answered (`resend`) and left for the check's cleanup, and a
 * fresh one is timed out with the later deadline that taught (lateReach).
 */
export async function untilHandlerHeld<T extends { first: FirstAttempt<unknown> }>(
  t: CheckContext,
  slow: SlowRuntime,
  attempt: {
    timeOut: () => Promise<T>;
    what: (timedOut: T) => string;
    resend: (timedOut: T) => Promise<unknown>;
    fresh: string;
  },
): Promise<{ timedOut: T; before: Set<string> }> {
  for (let tries = 1; ; tries++) {
    const before = new Set(await slow.createdIds());
    const timedOut = await attempt.timeOut();
    const missed = timedOut.first.missedDelay;
    if (!missed || tries === SLOW_HANDLER_TRIES) return { timedOut, before };
    t.step(`that attempt held no build (${missed}): ${attempt.fresh}, timed out with a later deadline`);
    await claimAbandoned(t, attempt.what(timedOut), () => attempt.resend(timedOut));
  }
}

/**
 * A RunPodSandbox timed out in the run's creation delay, with the id its build made: the start of the
 * checks that go on only once a build of the timed-out request exists (IDEM-10, IDEM-13). On the slow
 * runtime handler an attempt that gave up before the runtime reached it is made again, later
 * (timeOutOnSlowHandler): on a loaded node containerd 2.1 gave one up in its setup, the handler logged
 * nothing, and IDEM-10 ended in ERROR. The slow CNI wrapper logs each ADD, which comes first in the build.
 */
export async function timeOutHeldRunPod(
  t: CheckContext,
  name: string,
): Promise<TimedOutPod & { builtId: string }> {
  if (t.inject.offers('slow-runtime') === undefined) return timeOutOnSlowHandler(t, name);
  const delay = t.inject.creationDelay();
  const built = idsBuiltBy(t, delay);
  const timedOut = await timeOutRunPod(t, name, delay);
  const builtId = await t.poll(async () => (await built())[0], {
    withinMs: DELAY_MS + t.settings.marginMs,
    what: `the ${delay.name} to log the sandbox the timed-out request built`,
  });
  return { ...timedOut, builtId };
}

/**
 * The id the slow runtime handler logged first since the check started (and not in `before`): what the
 * timed-out call built.
 */
export function timedOutId(
  t: CheckContext,
  slow: SlowRuntime,
  first: CallResult<unknown>,
  before: ReadonlySet<string> = new Set(),
): Promise<string> {
  // A handler that logged nothing held no build: a setup failure (ERROR), not the runtime's. A busy runtime
  // may reach the handler only after the client's deadline (its build goes on without the caller: CNI and
  // the shim come first), so the log is awaited as long as the handler holds, plus the margin.
  return t.poll(async () => (await slow.createdIds()).find((id) => !before.has(id)), {
    withinMs: DELAY_MS + t.settings.marginMs,
    what: `the slow runtime handler to log the id the timed-out request built (it logged nothing: ${whyNothingLogged(first)})`,
  });
}

/**
 * Why a handler that logs every create before it sleeps (doctor and the run prove it) logged none. A first
 * attempt that failed at its deadline ended in a step before the runtime's OCI create (containerd starts
 * the sandbox's shim first, and gives up there when the deadline runs out), so nothing reached the handler.
 */
export function whyNothingLogged(first: FirstAttempt<unknown>): string {
  if (first.ok) return 'the injector did not hold the request';
  return `the request's ${first.deadlineMs ?? FIRST_DEADLINE_MS} ms deadline ran out (${first.code} after ${Math.round(first.latencyMs)} ms) before it reached the injector: the runtime gave the build up in an earlier step, such as starting the shim, so no build was held to check`;
}
