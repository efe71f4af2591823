/**
 * t.trials as a check's scope runs it (check-context.ts): each trial's objects built in the trial's own
 * scope, the trials side by side up to --parallel-trials with cleanup after each, and the tally asserted.
 */
import type { Assertions } from '../check/assertions.js';
import type { Check } from '../check/check.js';
import type { CheckPaths } from '../check/check-paths.js';
import type { CheckContext, ConfigFactory } from '../check/context.js';
import type { Timeline } from '../check/timeline.js';
import { TrialBuilds } from '../check/trial-builds.js';
import { TrialPlaces } from '../check/trial-places.js';
import type { TrialScope } from '../check/trial-scope.js';
import {
  assertTrials,
  emptyTally,
  plannedTrials,
  runTrials,
  type TrialTally,
  trialsAtOnce,
} from '../check/trials.js';
import type { RunEnv } from './run-env.js';

/** What t.trials needs of the check's scope. */
export interface TrialsDeps {
  timeline: Timeline;
  assertions: Assertions;
  paths: CheckPaths;
  scope: TrialScope;
  make: () => ConfigFactory;
  cleanupNow: (trial?: number) => Promise<void>;
  signal: AbortSignal;
  /**
   * Told, before the first trial, the tally and the trials' places (how many run side by side, and how a
   * trial rests): the scope reads them.
   */
  onStart: (tally: TrialTally, places: TrialPlaces) => void;
}

/** t.trials: builds each trial's objects, runs the trials side by side with cleanup after each, asserts. */
export function checkTrials(env: RunEnv, check: Check, deps: TrialsDeps): CheckContext['trials'] {
  const { timeline, assertions, paths, scope, make, cleanupNow, signal } = deps;
  return async (scenario, build, pathCount) => {
    const scale = pathCount ?? check.trialScale;
    const planned = plannedTrials(env.settings.trials, scale);
    const atOnce = trialsAtOnce(env.settings.parallelTrials, check.trialsAtOnce, planned);
    if (pathCount !== undefined && pathCount !== check.trialScale)
      timeline.note(`${planned} trials, --trials on each of the ${pathCount} paths that can be held here`);
    else if (scale !== 1) timeline.note(`${planned} trials, ${scale} x --trials: ${check.trialScaleWhy}`);
    if (check.trialsAtOnce && check.trialsAtOnce.max < env.settings.parallelTrials)
      timeline.note(`at most ${check.trialsAtOnce.max} trials at once: ${check.trialsAtOnce.why}`);
    timeline.note(`${planned} trials, up to ${atOnce} side by side`);
    const trials = emptyTally(planned);
    const places = new TrialPlaces(atOnce);
    deps.onStart(trials, places);
    const builds = new TrialBuilds(
      (n) =>
        scope.run(n, async () =>
          build ? build(n, make(), n === planned) : (undefined as Parameters<typeof scenario>[1]['built']),
        ),
      planned,
      (text) => timeline.note(text),
      () => trials.started,
    );
    await runTrials(
      (n) =>
        scope.run(n, async () => {
          timeline.note(`trial ${n} of ${planned}`);
          await scenario(n, await builds.setupFor(n));
        }),
      {
        after: async (n) => {
          await scope.run(n, () => cleanupNow(n));
          env.onTrialEnd?.(check.id, trials.run, planned);
        },
        onTrial: (n, outcome) => scope.run(n, () => timeline.note(`trial ${n}: ${outcome}`)),
        assertionsIn: (n) => assertions.countIn(n),
        deviatedIn: (n) => paths.deviatedIn(n),
        absorb: (e, n) => paths.absorb(e, n),
        signal,
      },
      trials,
      places,
    );
    assertTrials(trials);
  };
}
