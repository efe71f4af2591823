/**
 * Runs one check to a verdict: deadline, classification of what it threw (see assertions.ts), and
 * teardown that always runs.
 */
import { setMaxListeners } from 'node:events';
import { CriCallError } from '../../cri/errors.js';
import { classifyThrown } from '../check/assertions.js';
import { type Check, displayName } from '../check/check.js';
import { type CheckPaths, KNOWN_DEVIATION_OBSERVATION } from '../check/check-paths.js';
import { floorsOfTimeline } from '../check/floors.js';
import type { CheckResult, Verdict, ViolationRecord } from '../check/result.js';
import { describeStrength, describeTally, type TrialTally } from '../check/trials.js';
import {
  errorMessage,
  isAssertion,
  SetupError,
  SkipSignal,
  violationOf,
  WaitTimeout,
} from '../core/errors.js';
import { timeOfDay } from '../core/time-of-day.js';
import {
  type Disturbance,
  describeDisturbance,
  ENDED_BY_RUNTIME_CLAUSE,
  KUBELET_KILL_SHOWS_MS,
} from '../neighbours/disturbance.js';
import { abortingWith } from './abandoned-work.js';
import { type CheckBudget, checkBudget } from './check-budget.js';
import { openCheckScope } from './check-context.js';
import type { RunEnv } from './run-env.js';

const VERSION_PROBE_MS = 2_000;
/** Beyond --restart-timeout, for what a check cut short does before and after its restart. */
const RESTART_SETTLE_MS = 10_000;

export class CheckTimeout extends Error {
  readonly code = 'ERR_CHECK_TIMEOUT';
  override readonly name = 'CheckTimeout';
}

export async function executeCheck(env: RunEnv, check: Check, checkTimeoutMs: number): Promise<CheckResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const controller = new AbortController();
  // Every CRI call in flight listens on the check's signal, and a check may race dozens of calls at once.
  setMaxListeners(0, controller.signal);
  const onRunAbort = () => controller.abort(abortingWith(env.signal.reason));
  env.signal.addEventListener('abort', onRunAbort, { once: true });
  // Another client's doing makes whatever the check concludes meaningless, but the check runs on to its
  // end: cancelling its calls in flight would leave the runtime building what no cleanup then sees.
  const onDisturbed = (d: Disturbance) => scope.timeline.note(describeDisturbance(d));
  const scope = openCheckScope(env, check, controller.signal, onDisturbed);
  const unwatch = env.disturbance?.watch(scope.objects);
  const budget = checkBudget(checkTimeoutMs, check, env.settings.trials);
  const deadline = checkDeadline(controller, budget, () => scope.timeline.requiredWaitMs);
  scope.timeline.note(`start ${displayName(check)}`);

  let verdict: Verdict;
  let message: string | undefined;
  let detail: string | undefined;
  /** The violation that decided a FAIL, when no deviation entry names it. */
  let violation: Omit<ViolationRecord, 'known'> | undefined;
  const work = check.run(scope.t);
  try {
    await raceAbort(work, controller.signal);
    const ending = scope.assertions.judgeQuietEnding(check.level, Object.keys(scope.observations).length);
    verdict = ending.verdict;
    if ('message' in ending) message = ending.message;
    const tally = scope.trials();
    if (verdict === 'passed' && scope.paths.deviated) {
      verdict = 'failed';
      message = scope.paths.describe(tally?.planned);
    } else if (verdict === 'passed' && tally) message = describeStrength(tally.run, scope.paths.held());
  } catch (e) {
    ({ verdict, message, detail, violation } = classify(e, controller.signal, scope.trials(), scope.paths));
  } finally {
    deadline.clear();
    env.signal.removeEventListener('abort', onRunAbort);
  }
  // A [Restart] check cut short may be restarting a runtime it wedged on purpose (TEAR-16 deadlocks
  // containerd 2.1): its own code ends that restart before the next check or the final sweep meets it.
  if (controller.signal.aborted && check.tags.includes('Restart') && env.restart)
    await settledWithin(work, env.restart.timeoutMs + RESTART_SETTLE_MS);
  // A last look before the verdict: a pod stopped since the last listing made the ending what it was.
  if (scope.paths.deviated) {
    const known = scope.paths.describe(scope.trials()?.planned);
    // Any other outcome outranks the known deviations, which stay on record beside it.
    if (message !== known) scope.observations[KNOWN_DEVIATION_OBSERVATION] = known;
    if (verdict === 'skipped') {
      verdict = 'error';
      message = `skipped after a known deviation, so the rest of the check never ran: ${message ?? ''}`;
    }
  }
  const ended = verdict === 'failed' || verdict === 'error';
  await env.disturbance?.lastLook(scope.objects, ended ? KUBELET_KILL_SHOWS_MS : undefined);
  await scope.objects.settled();
  unwatch?.();
  const disturbed = scope.objects.disturbance;
  if (env.disturbance && !disturbed)
    scope.timeline.note(`no other client stopped or removed the check's objects up to ${timeOfDay()}`);
  if (disturbed?.by === 'the runtime') {
    // Whatever the check concluded, the runtime broke the lifecycle: the event is the evidence.
    const what = describeDisturbance(disturbed);
    scope.observations[ENDED_BY_RUNTIME_CLAUSE] = what;
    const found = verdict === 'failed' || verdict === 'error' ? message : undefined;
    message = found ? `${what}; the check also found: ${found}` : what;
    verdict = 'failed';
    detail = undefined;
    violation = { clause: ENDED_BY_RUNTIME_CLAUSE, message: what };
  } else if (disturbed) {
    const what = describeDisturbance(disturbed);
    scope.observations.disturbed = what;
    message = verdict === 'failed' ? `${what}; it had found: ${message ?? ''}` : what;
    verdict = 'error';
  }
  const problems = await scope.teardown().catch((e: unknown) => [errorMessage(e)]);
  if (problems.length > 0) {
    const cleanup = problems.join('; ');
    scope.timeline.note(`cleanup: ${cleanup}`);
    if (verdict === 'passed' || verdict === 'observed') {
      verdict = 'error';
      message = `the check passed, but its objects could not be cleaned up: ${cleanup}`;
    } else if (verdict === 'failed' && !(await answers(env.client))) {
      // Whatever the check saw go missing may have gone with the runtime (a plugin's events end with its
      // connection). A crash the check caused is no pass either way, and the message says what happened.
      verdict = 'error';
      message = `the runtime stopped answering during the check (cleanup: ${cleanup}), so what it saw may be the crash's doing; it had found: ${message ?? ''}`;
    }
  }
  const tally = scope.trials();
  return {
    ...identityOf(check),
    verdict,
    durationMs: Math.round(performance.now() - started),
    startedAt,
    ...(message !== undefined ? { message } : {}),
    ...(detail !== undefined ? { detail } : {}),
    observations: scope.observations,
    ...(scope.notRun.length > 0 ? { notRun: scope.notRun } : {}),
    ...violationsOf(violation, scope.paths, tally?.violatedIn),
    // A known deviation is a violation too: it only does not end the other trials and paths.
    ...(tally
      ? {
          trials: {
            run: tally.run,
            violated: tally.violated + tally.deviated.length,
            atOnce: scope.trialsAtOnce(),
          },
        }
      : {}),
    timeline: scope.timeline.entries,
    requiredWaitMs: Math.round(scope.timeline.requiredWaitMs),
    ...(tally ? { floorMs: floorsOfTimeline(scope.timeline, scope.trialsAtOnce()) } : {}),
  };
}

/**
 * --timeout bounds the check's own work (check-budget.ts); every wait the check declares (pauses, absence
 * windows, calls meant to hang, NRI windows) moves its deadline out by as much, so a check that must wait
 * out --cache-ttl twice is never cut short by a limit that knows nothing of it. The waits are counted as
 * they are declared, so when the first deadline comes the timer only re-arms for what they added.
 */
function checkDeadline(
  controller: AbortController,
  { ms: ownWorkMs, source }: CheckBudget,
  declaredWaitMs: () => number,
): { clear(): void } {
  const startedAt = performance.now();
  let timer: NodeJS.Timeout;
  const arm = () => {
    const waits = declaredWaitMs();
    const leftMs = startedAt + ownWorkMs + waits - performance.now();
    if (leftMs > 0) {
      timer = setTimeout(arm, leftMs);
      return;
    }
    const limit =
      waits > 0
        ? `${ownWorkMs} ms (${source}) plus ${Math.round(waits)} ms of its declared waits`
        : `${ownWorkMs} ms (${source})`;
    controller.abort(abortingWith(new CheckTimeout(`check timed out after ${limit}`)));
  };
  timer = setTimeout(arm, ownWorkMs);
  return { clear: () => clearTimeout(timer) };
}

/** Whether the runtime still answers at all: Version needs none of the locks a wedged runtime holds. */
function answers(client: RunEnv['client']): Promise<boolean> {
  return client.call('Version', { version: 'v1' }, { deadlineMs: VERSION_PROBE_MS }).then(
    () => true,
    () => false,
  );
}

/** The fields of a result that come from the check itself. */
export function identityOf(
  check: Check,
): Pick<CheckResult, 'id' | 'suite' | 'title' | 'level' | 'tags' | 'contract'> {
  const { id, suite, title, level, tags, contract } = check;
  return { id, suite, title, level, tags, contract };
}

/**
 * The violations a result carries: the one that decided a FAIL (with the trial it showed in), then the
 * known deviations seen.
 */
function violationsOf(
  deciding: Omit<ViolationRecord, 'known'> | undefined,
  paths: CheckPaths,
  trial: number | undefined,
): { violations?: ViolationRecord[] } {
  const decided = deciding && {
    ...deciding,
    known: false,
    ...(trial === undefined ? {} : { trials: [trial] }),
  };
  const all = [...(decided ? [decided] : []), ...paths.records()];
  return all.length > 0 ? { violations: all } : {};
}

function classify(
  e: unknown,
  signal: AbortSignal,
  tally: TrialTally | undefined,
  paths: CheckPaths,
): { verdict: Verdict; message?: string; detail?: string; violation?: Omit<ViolationRecord, 'known'> } {
  // A violation an earlier trial found stands, whatever ended the check afterwards. A known deviation does
  // not: an error, skip or timeout after it leaves the check undecided (ERROR), the deviation on record.
  if (tally?.first && tally.violated > 0 && !isAssertion(e)) {
    return {
      verdict: 'failed',
      message: `${describeTally(tally)}; then: ${errorMessage(signal.reason ?? e)}`,
      violation: { clause: tally.first.clause, message: tally.first.own },
    };
  }
  if (signal.aborted && !(e instanceof SkipSignal)) {
    const reason = signal.reason;
    return { verdict: 'error', message: reason instanceof Error ? reason.message : 'interrupted' };
  }
  if (isAssertion(e)) {
    // Out of a check without trials (the trials tested theirs): it ends the check, and is its verdict when
    // an entry names it.
    if (!tally && paths.absorb(e)) return { verdict: 'failed', message: paths.describe() };
    const { clause, own } = violationOf(e);
    return { verdict: 'failed', message: errorMessage(e), violation: { clause, message: own } };
  }
  const judged = classifyThrown(e);
  const known = e instanceof CriCallError || e instanceof SetupError || e instanceof WaitTimeout;
  const stack = judged.verdict === 'error' && !known && e instanceof Error ? e.stack : undefined;
  return { ...judged, ...(stack ? { detail: stack } : {}) };
}

/** Waits for `work` to settle, however it ends, for `ms` at most. */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([work.then(noop, noop), bound]);
  clearTimeout(timer);
}

function noop(): void {}

/** Ends as soon as the check's signal aborts, even if the check is stuck in a call that ignores it. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
