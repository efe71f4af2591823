/**
 * Repeats a race-prone scenario. One lucky trial never turns a broken runtime green: any violating trial
 * fails the check, with its evidence. Trials keep what they found: a later trial that errors or skips never
 * throws away an earlier violation, and a violation always wins. The first violation ends the trials: it
 * already decides the verdict, and a runtime that fails should not be made to fail four times more, so no
 * trial starts after it (those already under way run to their end). A known deviation (check-paths.ts) is
 * no such violation: it decides only the trial it showed in, and the trials go on, so that a new bug behind
 * it still shows.
 *
 * Trials run side by side, up to --parallel-trials at work at once (or fewer where the check says so; a
 * trial waiting out a reaping grace rests meanwhile: trial-places.ts): each is independent by construction
 * (its own objects, names, plugins and injector claims; trial-scope.ts), and most of a trial is waiting.
 */
import {
  ContractViolation,
  errorMessage,
  ScenarioMissed,
  SetupError,
  SkipSignal,
  type ViolationWords,
  violationOf,
} from '../core/errors.js';
import { TrialPlaces } from './trial-places.js';

/**
 * How many times a trial's scenario is run when it did not come about (ScenarioMissed), at most; misses
 * after which the scenario was set up anew to come about (ScenarioMissed.adapted) do not count, up to
 * ADAPTED_ATTEMPTS of them: on a loaded two-core VM, IDEM-14's first trials missed the slow handler at
 * deadlines of 0.5, 1 and 1.5 s while the run learnt the 2.5 s that landed, and ended in ERROR.
 */
export const MISSED_ATTEMPTS = 3;
const ADAPTED_ATTEMPTS = 3;

export interface TrialTally {
  /** How many trials the run asked for (--trials). */
  planned: number;
  /** Trials that ran to their end. */
  run: number;
  /** The highest trial number started (trials start in order, so every lower one started too). */
  started: number;
  violated: number;
  /**
   * The deciding violation's message and trial: the lowest-numbered violating trial (the first violation
   * ends the trials, but trials already under way beside it run to their end and may violate too; the
   * lowest one decides, as it would have with the trials one after another).
   */
  firstViolation?: string;
  violatedIn?: number;
  /** Its clause, own words and parts (ContractViolation), for the verdict and the deviation entries. */
  first?: Required<ViolationWords>;
  /** The other violating trials' violations, as "trial 9: why". */
  otherViolations: string[];
  /** Trials in which a known deviation showed (each went on to its end or to its own outcome). */
  deviated: number[];
  /** Trials that ended in an error (the tool could not decide them), as "trial 2: why". */
  errors: string[];
  /** Set when a trial skipped: the trials stop there. */
  skipped?: string;
}

export interface TrialHooks {
  /** After each trial: clears what that trial made (its own objects only: others may still run). */
  after: (trial: number) => Promise<void>;
  onTrial: (trial: number, outcome: string) => void;
  /** How many contract assertions this trial has made so far (a trial that makes none tested nothing). */
  assertionsIn: (trial: number) => number;
  /** Whether a known deviation showed in this trial (check-paths.ts): asked by trial, not by count, so
   * that trials run side by side are told apart. */
  deviatedIn: (trial: number) => boolean;
  /** Records a violation out of a trial when it is a known deviation (true), so the trials go on. */
  absorb: (e: unknown, trial: number) => boolean;
  signal: AbortSignal;
}

/**
 * How many trials a check runs: --trials times its scale, rounded, and at least one. A scale need not be a
 * whole number: a check that spreads its trials over cases scales to so many per case.
 */
export function plannedTrials(trials: number, scale: number): number {
  return Math.max(1, Math.round(trials * scale));
}

/**
 * How many trials run side by side: --parallel-trials, or fewer where the check says running them at once
 * would change what they test, and never more than there are trials.
 */
export function trialsAtOnce(
  parallelTrials: number,
  declared: { max: number } | undefined,
  planned: number,
): number {
  return Math.max(1, Math.min(parallelTrials, declared?.max ?? parallelTrials, planned));
}

export function emptyTally(planned: number): TrialTally {
  return { planned, run: 0, started: 0, violated: 0, otherViolations: [], errors: [], deviated: [] };
}

/**
 * Runs tally.planned trials into `tally` (live, so a check that is cut short still reports what they
 * found), as many at work at a time as `places` has, in order, until the first violation or skip: no trial
 * starts after it.
 */
export async function runTrials(
  scenario: (trial: number) => Promise<void>,
  hooks: TrialHooks,
  tally: TrialTally,
  places = new TrialPlaces(1),
): Promise<void> {
  const decided = () => tally.skipped !== undefined || tally.violated > 0;
  const one = async (trial: number): Promise<void> => {
    const deviated = () => {
      if (hooks.deviatedIn(trial) && !tally.deviated.includes(trial)) tally.deviated.push(trial);
    };
    try {
      await again(trial, scenario, hooks);
      if (hooks.assertionsIn(trial) === 0) throw new SetupError('asserted nothing');
      deviated();
      hooks.onTrial(trial, tally.deviated.includes(trial) ? 'showed a known deviation' : 'held');
    } catch (e) {
      if (hooks.signal.aborted) throw e;
      if (hooks.absorb(e, trial)) {
        deviated();
        hooks.onTrial(trial, `showed a known deviation: ${errorMessage(e)}`);
      } else {
        deviated();
        record(tally, trial, e);
        hooks.onTrial(trial, outcomeOf(e));
      }
    } finally {
      tally.run++;
      await hooks.after(trial);
    }
  };
  // Each lane takes the next trial once it has a place, and gives the place up when the trial is cleared up
  // (or while it rests: trial-places.ts).
  const more = () => tally.started < tally.planned && !decided() && !hooks.signal.aborted;
  const lane = async (): Promise<void> => {
    while (more()) {
      await places.enter();
      if (!more()) return places.leave();
      tally.started++;
      try {
        await one(tally.started);
      } finally {
        places.leave();
      }
    }
  };
  const lanes = Math.max(1, Math.min(places.underWayAtMost, tally.planned));
  await Promise.all(Array.from({ length: lanes }, lane));
}

/**
 * Runs a trial's scenario, and again from a clean start when it did not come about by chance
 * (ScenarioMissed), up to MISSED_ATTEMPTS times: such a run tested nothing, so it is no trial.
 */
async function again(
  trial: number,
  scenario: (trial: number) => Promise<void>,
  hooks: TrialHooks,
): Promise<void> {
  let adapted = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await scenario(trial);
    } catch (e) {
      if (!(e instanceof ScenarioMissed) || hooks.signal.aborted) throw e;
      if (e.adapted && adapted < ADAPTED_ATTEMPTS) adapted++;
      if (attempt - adapted >= MISSED_ATTEMPTS) throw e;
      hooks.onTrial(trial, `runs again: its scenario did not come about (${e.message})`);
      await hooks.after(trial);
    }
  }
}

function record(tally: TrialTally, trial: number, e: unknown): void {
  const line = `trial ${trial}: ${errorMessage(e)}`;
  if (e instanceof SkipSignal) tally.skipped ??= line;
  else if (isViolation(e)) {
    tally.violated++;
    if (tally.violatedIn !== undefined && tally.violatedIn < trial) {
      tally.otherViolations.push(line);
      return;
    }
    if (tally.violatedIn !== undefined)
      tally.otherViolations.push(`trial ${tally.violatedIn}: ${tally.firstViolation ?? ''}`);
    tally.violatedIn = trial;
    tally.firstViolation = errorMessage(e);
    tally.first = violationOf(e);
  } else tally.errors.push(line);
}

function outcomeOf(e: unknown): string {
  if (e instanceof SkipSignal) return `skipped: ${e.message}`;
  return `${isViolation(e) ? 'violated' : 'error'}: ${errorMessage(e)}`;
}

function isViolation(e: unknown): boolean {
  return e instanceof Error && e.name === 'AssertionError';
}

/**
 * "violated in trial 2 of 5 (trials 4-5 not run: one violation decides): ...; also violated in trial 3:
 * ...; also error in trial 1: ..."
 */
export function describeTally(tally: TrialTally): string {
  const rest = [
    ...tally.otherViolations.map((v) => `violated in ${v}`),
    ...tally.errors.map((e) => `error in ${e}`),
    ...(tally.skipped ? [`skip in ${tally.skipped}`] : []),
  ];
  const unrun = tally.planned - tally.started;
  const from = tally.started + 1;
  const after =
    unrun <= 0
      ? ''
      : ` (${unrun === 1 ? `trial ${tally.planned}` : `trials ${from}-${tally.planned}`} not run: one violation decides)`;
  return `violated in trial ${tally.violatedIn ?? tally.run} of ${tally.planned}${after}: ${tally.firstViolation ?? ''}${
    rest.length > 0 ? `; also ${rest.join('; ')}` : ''
  }`;
}

/**
 * Ends the trials as the check's verdict: a violation fails; else an error errs; else a skip skips, or errs
 * when a known deviation showed first (the rest of the check never ran, and a known bug is no verdict on
 * it). Returning means every trial ended held or with a known deviation: the check decides which.
 */
export function assertTrials(tally: TrialTally): void {
  if (tally.violated > 0) throw new ContractViolation(describeTally(tally), tally.first);
  if (tally.errors.length > 0) {
    throw new SetupError(
      `${tally.errors.length} of ${tally.run} trials could not decide; first: ${tally.errors[0]}`,
    );
  }
  if (tally.skipped && tally.deviated.length > 0) {
    throw new SetupError(
      `the trials stopped at a skip after a known deviation, so the rest of the check never ran: ${tally.skipped}`,
    );
  }
  if (tally.skipped) throw new SkipSignal(tally.skipped);
}

/** The rate of a race that N clean trials would have caught with 95% confidence: 1 - 0.05^(1/N). */
export function detectableRate(trials: number): number {
  return 1 - 0.05 ** (1 / trials);
}

/** As a whole percentage, rounded up: the claim never overstates what the trials could see. */
function percent(rate: number): string {
  return `${Math.ceil(rate * 100 - 1e-9)}%`;
}

/**
 * What a PASS of a trials check is worth: "not seen in 20 trials; a race that shows in at least 14% of
 * trials would have shown with 95% confidence". With paths (check-paths.ts), the figure is per path, from
 * the path that ran least: a race that shows on one path only gets no help from the others' trials.
 */
export function describeStrength(trials: number, paths: ReadonlyMap<string, number> = new Map()): string {
  if (paths.size < 2) {
    return `not seen in ${trials} trials; a race that shows in at least ${percent(detectableRate(trials))} of trials would have shown with 95% confidence`;
  }
  const counts = [...paths.values()];
  const least = Math.min(...counts);
  const each = counts.every((n) => n === least) ? `${least}` : `at least ${least}`;
  return `not seen in ${trials} trials, ${each} on each of its ${paths.size} paths (${[...paths.keys()].join(', ')}); a race that shows in at least ${percent(detectableRate(least))} of a path's trials would have shown with 95% confidence`;
}
