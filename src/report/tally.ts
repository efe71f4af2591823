/** Counting results by verdict, overall and per suite, in one fixed verdict order for every reporter. */
import type { CheckResult, Verdict } from '../harness/result.js';

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
