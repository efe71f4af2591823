/** The only mapping from outcomes to exit codes. The JUnit and the exit code always tell the same story. */
import type { RunOutcome } from '../harness/check/result.js';
import { outcomeExitCode } from '../report/tally.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export function exitCodeFor(outcome: RunOutcome, opts: { strictDeviations?: boolean } = {}): number {
  const code = outcomeExitCode(outcome);
  const stale = opts.strictDeviations === true && (outcome.staleDeviations?.length ?? 0) > 0;
  return code === EXIT_OK && stale ? EXIT_FAILED : code;
}
