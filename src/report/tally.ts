/** Counting results by verdict, overall and per suite, in one fixed verdict order for every reporter. */
import type { CheckResult, RunOutcome, Verdict } from '../harness/check/result.js';

export const VERDICT_ORDER: readonly Verdict[] = [
  'passed',
  'failed',
  'error',
  'skipped',
  'deviation',
  'observed',
];

export type VerdictCounts = Record<Verdict, number>;

export function emptyCounts(): VerdictCounts {
  return { passed: 0, failed: 0, error: 0, skipped: 0, deviation: 0, observed: 0 };
}

export function countVerdicts(results: readonly CheckResult[]): VerdictCounts {
  const counts = emptyCounts();
  for (const r of results) counts[r.verdict] += 1;
  return counts;
}

/** Results grouped by suite, suites in order of first appearance (the run order). */
export function groupBySuite(results: readonly CheckResult[]): Map<string, CheckResult[]> {
  const groups = new Map<string, CheckResult[]>();
  for (const r of results) {
    const list = groups.get(r.suite);
    if (list) list.push(r);
    else groups.set(r.suite, [r]);
  }
  return groups;
}

/**
 * The exit code an outcome maps to: 2 when no trustworthy verdict was produced (the run did not start, or
 * was interrupted other than by --fail-fast), 1 when a check failed or errored or the runtime crashed,
 * else 0. The CLI's exit code
 * and the reports' headline both come from here, so they always tell the same story.
 */
export function outcomeExitCode(outcome: RunOutcome): 0 | 1 | 2 {
  if (outcome.notStarted !== undefined) return 2;
  if (outcome.interrupted && !outcome.interrupted.startsWith('--fail-fast')) return 2;
  const bad =
    outcome.results.some((r) => r.verdict === 'failed' || r.verdict === 'error') ||
    (outcome.runtimeCrashes?.length ?? 0) > 0;
  return bad ? 1 : 0;
}
