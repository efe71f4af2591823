/**
 * Expected deviations applied to results. A failure becomes an "expected deviation" only when entries of
 * the --expected-deviations file name its check, the runtime, a range holding the runtime's version, and
 * patterns that every violation it rests on matches, each in its own words (CheckResult.violations); any
 * other failure of that check stays a FAIL. Entries that matched no failure (the check passed, or failed
 * differently) are stale, and the run reports them. Failures that match an entry of the bundled files keep
 * their verdict but carry the known issue's reason and links, and each violation that an entry of either
 * file matches names that entry's issue, whatever the others do.
 */

import { type CheckResult, describeTracking, type RunOutcome } from '../check/result.js';
import type { Deviation } from './deviation-file.js';

export interface DeviationSets {
  /** From --expected-deviations: these turn a matching failure into a deviation. */
  expected: readonly Deviation[];
  /** Shipped with cri-conform: these only name the known issue next to a matching failure. */
  bundled: readonly Deviation[];
}

export interface RuntimeIdentity {
  name: string;
  version: string;
}

/** The entry is about this check on this runtime at this version (whatever the failure says). */
function concerns(d: Deviation, id: string, runtime: RuntimeIdentity): boolean {
  return (
    d.id === id && d.runtime.toLowerCase() === runtime.name.toLowerCase() && d.versions.test(runtime.version)
  );
}

/** The first entry about this check on this runtime whose pattern matches the violation's words. */
function entryFor(
  entries: readonly Deviation[],
  id: string,
  runtime: RuntimeIdentity,
  text: string,
): Deviation | undefined {
  return entries.find((d) => concerns(d, id, runtime) && d.message.test(text));
}

/**
 * The violations a failure rests on, each in its own words: what entries are matched against, so that no
 * pattern reaches into text the harness composed around them. A result without them (a report written by
 * an older version) offers its message instead.
 */
export function violationTexts(
  r: Pick<CheckResult, 'verdict' | 'message' | 'detail' | 'violations'>,
): string[] {
  if (r.violations && r.violations.length > 0) return r.violations.map((v) => v.message);
  if (r.verdict === 'failed') return [r.message ?? ''];
  if (r.verdict === 'deviation') return [r.detail ?? ''];
  return [];
}

/** The entry that matches the violation the failure rests on (its first), if every violation has one. */
function matching(
  entries: readonly Deviation[],
  r: CheckResult,
  runtime: RuntimeIdentity,
): Deviation | undefined {
  return matchingAll(entries, r, runtime)[0];
}

/**
 * The entries that match the violations the failure rests on, each once, in the order of the violations,
 * if every violation has one; else none. Two when a trial met two known bugs (ContractViolation.parts).
 */
function matchingAll(entries: readonly Deviation[], r: CheckResult, runtime: RuntimeIdentity): Deviation[] {
  const texts = r.verdict === 'failed' ? violationTexts(r) : [];
  const found = texts.map((text) => entryFor(entries, r.id, runtime, text));
  if (found.length === 0 || found.some((d) => d === undefined)) return [];
  return [...new Set(found as Deviation[])];
}

/**
 * The entry of either set that names a violation of a check on this runtime, while the check runs, by
 * where it is written: such a violation decides only the path it showed on (check-paths.ts).
 */
export function knownDeviationTest(
  sets: DeviationSets,
  runtime: RuntimeIdentity,
): (checkId: string, message: string) => string | undefined {
  const entries = [...sets.expected, ...sets.bundled];
  return (id, message) => entryFor(entries, id, runtime, message)?.where;
}

const knownIssueOf = (d: Deviation) => ({
  reason: d.reason,
  links: [...d.links],
  ...(d.draft ? { draft: d.draft } : {}),
});

/**
 * Each violation with the known issue of the first entry that matches it, or what it named before when none
 * does (a report made later keeps what a deviations file of the user's named at run time).
 */
function withViolationIssues(
  result: CheckResult,
  entries: readonly Deviation[],
  runtime: RuntimeIdentity,
): CheckResult {
  if (!result.violations || result.violations.length === 0) return result;
  const violations = result.violations.map((v) => {
    const entry = entryFor(entries, result.id, runtime, v.message);
    return entry ? { ...v, knownIssue: knownIssueOf(entry) } : v;
  });
  return { ...result, violations };
}

export function applyDeviations(
  found: CheckResult,
  sets: DeviationSets,
  runtime: RuntimeIdentity,
): CheckResult {
  const result =
    found.verdict === 'failed'
      ? withViolationIssues(found, [...sets.expected, ...sets.bundled], runtime)
      : found;
  if (result.verdict === 'passed') {
    const listed = sets.expected.find((d) => concerns(d, result.id, runtime));
    if (!listed) return result;
    const note = `listed as an expected deviation but passed: ${listed.draft ?? listed.links[0]}`;
    return { ...result, observations: { ...result.observations, deviation: note } };
  }
  if (result.verdict !== 'failed') return result;
  const [expected, ...alsoExpected] = matchingAll(sets.expected, result, runtime);
  if (expected) {
    const each = [expected, ...alsoExpected].map((d) => `${d.reason} ${describeTracking(d)}`);
    return {
      ...result,
      verdict: 'deviation',
      message: `expected deviation: ${each.join('; and: ')}`,
      detail: result.message,
      knownIssue: knownIssueOf(expected),
    };
  }
  const bundled = matching(sets.bundled, result, runtime);
  const listed = sets.expected.find((d) => concerns(d, result.id, runtime));
  return {
    ...result,
    ...(bundled ? { knownIssue: knownIssueOf(bundled) } : {}),
    ...(listed
      ? {
          observations: {
            ...result.observations,
            deviation: `listed as an expected deviation (${listed.where}), but the message does not match /${listed.message.source}/: a different failure`,
          },
        }
      : {}),
  };
}

/**
 * Entries of the --expected-deviations file that concern this runtime and version but matched no failure
 * of a check that ran to a verdict. A check that was skipped, errored or not selected proves nothing, and
 * neither does one run of a race (`race: true`, unseenRaces): its bug shows in some trials only.
 */
export function staleDeviations(
  expected: readonly Deviation[],
  results: readonly CheckResult[],
  runtime: RuntimeIdentity,
): string[] {
  return unmatched(expected, results, runtime)
    .filter(({ entry }) => entry.race !== true)
    .map(({ entry, ran }) => describeUnmatched(entry, ran));
}

/**
 * The race entries that matched nothing this run. Not stale: a release gate that failed on them
 * (--strict-deviations) would fail whenever the race happened not to show, in about one run in eight for
 * a bug that shows in 5% of 40 trials. The run says them, with the trials their check ran.
 */
export function unseenRaces(
  expected: readonly Deviation[],
  results: readonly CheckResult[],
  runtime: RuntimeIdentity,
): string[] {
  return unmatched(expected, results, runtime)
    .filter(({ entry }) => entry.race === true)
    .map(({ entry, ran }) => describeUnmatched(entry, ran));
}

function unmatched(
  expected: readonly Deviation[],
  results: readonly CheckResult[],
  runtime: RuntimeIdentity,
): { entry: Deviation; ran: CheckResult[] }[] {
  return expected.flatMap((entry) => {
    if (!concerns(entry, entry.id, runtime)) return [];
    const ran = results.filter(
      (r) => r.id === entry.id && ['passed', 'failed', 'deviation'].includes(r.verdict),
    );
    if (ran.length === 0) return [];
    // A known deviation beside another failure still showed: the entry is live, the check failed anew.
    if (ran.some((r) => violationTexts(r).some((text) => entry.message.test(text)))) return [];
    return [{ entry, ran }];
  });
}

function describeUnmatched(d: Deviation, ran: readonly CheckResult[]): string {
  const passed = ran.find((r) => r.verdict === 'passed');
  const trials = passed?.trials ? ` in ${passed.trials.run} trials` : '';
  const what = passed ? `the check passed${trials}` : `its failure does not match /${d.message.source}/`;
  return `${d.id} (${d.runtime} ${d.versions.text}): ${what}; ${d.where}, ${d.draft ?? d.links[0]}`;
}

/**
 * A recorded run with each failure's known issue as these bundled deviations name it now: a report made
 * later (a bug report, a page of runtime bugs) names the issue filed or drafted since the run, and no
 * longer one an entry has since dropped. A failure the bundled entries do not match keeps what the run
 * recorded (a deviation file of the user's own named it then).
 */
export function withCurrentKnownIssues(outcome: RunOutcome, bundled: readonly Deviation[]): RunOutcome {
  const runtime = { name: outcome.properties.runtimeName, version: outcome.properties.runtimeVersion };
  const results = outcome.results.map((recorded) => {
    const r = withViolationIssues(recorded, bundled, runtime);
    const entry = matching(bundled, r, runtime);
    return entry ? { ...r, knownIssue: knownIssueOf(entry) } : r;
  });
  return { ...outcome, results };
}
