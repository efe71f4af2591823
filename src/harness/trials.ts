/**
 * Repeats a race-prone scenario. One lucky trial never turns a broken runtime green: any violating trial
 * fails the check, with the count and the first violation's evidence. Trials keep what they found: a
 * later trial that errors or skips never throws away an earlier violation, and a violation always wins.
 */
import { ContractViolation, errorMessage, SetupError, SkipSignal } from './errors.js';

export interface TrialTally {
  run: number;
  violated: number;
  firstViolation?: string;
  /** Trials that ended in an error (the tool could not decide them), as "trial 2: why". */
  errors: string[];
  /** Set when a trial skipped: the trials stop there. */
  skipped?: string;
}

export interface TrialHooks {
  /** Between trials (and after the last): clears what the trial made. */
  between: () => Promise<void>;
  onTrial: (trial: number, outcome: string) => void;
  /** How many contract assertions the check has made so far (a trial that adds none tested nothing). */
  assertions: () => number;
  signal: AbortSignal;
}

export function emptyTally(): TrialTally {
  return { run: 0, violated: 0, errors: [] };
}

/** Runs the trials into `tally` (live, so a check that is cut short still reports what they found). */
export async function runTrials(
  count: number,
  scenario: (trial: number) => Promise<void>,
  hooks: TrialHooks,
  tally: TrialTally,
): Promise<void> {
  for (let trial = 1; trial <= count && tally.skipped === undefined; trial++) {
    const before = hooks.assertions();
    try {
      await scenario(trial);
      if (hooks.assertions() === before) throw new SetupError('asserted nothing');
      hooks.onTrial(trial, 'held');
    } catch (e) {
      if (hooks.signal.aborted) throw e;
      record(tally, trial, e);
      hooks.onTrial(trial, outcomeOf(e));
    } finally {
      tally.run++;
      await hooks.between();
    }
  }
}

function record(tally: TrialTally, trial: number, e: unknown): void {
  const line = `trial ${trial}: ${errorMessage(e)}`;
  if (e instanceof SkipSignal) tally.skipped = line;
  else if (isViolation(e)) {
    tally.violated++;
    tally.firstViolation ??= line;
  } else tally.errors.push(line);
}

function outcomeOf(e: unknown): string {
  if (e instanceof SkipSignal) return `skipped: ${e.message}`;
  return `${isViolation(e) ? 'violated' : 'error'}: ${errorMessage(e)}`;
}

function isViolation(e: unknown): boolean {
  return e instanceof Error && e.name === 'AssertionError';
}

/** "violated in 1 of 3 trials; first: trial 1: ...; then trial 3: skipped ..." */
export function describeTally(tally: TrialTally): string {
  const rest = [
    ...tally.errors.map((e) => `error in ${e}`),
    ...(tally.skipped ? [`skip in ${tally.skipped}`] : []),
  ];
  return `violated in ${tally.violated} of ${tally.run} trials; first: ${tally.firstViolation ?? ''}${
    rest.length > 0 ? `; also ${rest.join('; ')}` : ''
  }`;
}

/** Ends the trials as the check's verdict: a violation fails; else an error errs; else a skip skips. */
export function assertTrials(tally: TrialTally): void {
  if (tally.violated > 0) throw new ContractViolation(describeTally(tally));
  if (tally.errors.length > 0) {
    throw new SetupError(
      `${tally.errors.length} of ${tally.run} trials could not decide; first: ${tally.errors[0]}`,
    );
  }
  if (tally.skipped) throw new SkipSignal(tally.skipped);
}
