/**
 * Repeats a race-prone scenario. One lucky trial never turns a broken runtime green: any violating trial
 * fails the check, with the count and the first violation's evidence.
 */
import { ContractViolation, errorMessage, SkipSignal } from './errors.js';

export interface TrialTally {
  run: number;
  violated: number;
  firstViolation?: string;
}

export async function runTrials(
  count: number,
  scenario: (trial: number) => Promise<void>,
  between: () => Promise<void>,
  onTrial: (trial: number, verdict: string) => void,
  signal: AbortSignal,
): Promise<TrialTally> {
  const tally: TrialTally = { run: 0, violated: 0 };
  for (let trial = 1; trial <= count; trial++) {
    try {
      await scenario(trial);
      onTrial(trial, 'held');
    } catch (e) {
      if (e instanceof SkipSignal || signal.aborted) throw e;
      tally.violated++;
      tally.firstViolation ??= `trial ${trial}: ${errorMessage(e)}`;
      onTrial(trial, `violated: ${errorMessage(e)}`);
    } finally {
      tally.run++;
      await between();
    }
  }
  return tally;
}

export function assertTrials(tally: TrialTally): void {
  if (tally.violated > 0) {
    throw new ContractViolation(
      `violated in ${tally.violated} of ${tally.run} trials; first: ${tally.firstViolation ?? ''}`,
    );
  }
}
