/** The only mapping from outcomes to exit codes. The JUnit and the exit code always tell the same story. */
import type { RunOutcome } from '../harness/result.js';

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export function exitCodeFor(outcome: RunOutcome, opts: { strictDeviations?: boolean } = {}): number {
  if (outcome.interrupted && !outcome.interrupted.startsWith('--fail-fast')) return EXIT_USAGE;
  const bad = outcome.results.some((r) => r.verdict === 'failed' || r.verdict === 'error');
  const stale = opts.strictDeviations === true && (outcome.staleDeviations?.length ?? 0) > 0;
  return bad || stale ? EXIT_FAILED : EXIT_OK;
}
