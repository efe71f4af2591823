/**
 * The machine-readable report. Field names are a contract: fields are only ever added (each addition bumps
 * schemaVersion), and every field is always present (null when it does not apply), so consumers need no
 * existence checks. results.schema.json beside this file is the published schema.
 * Version 2 added properties.node, notStarted, staleDeviations and each result's knownIssue; version 3
 * added runtimeCrashes; version 4 each result's violations (the clause each broke, in its own words);
 * version 5 each result's notRun (the parts of its contract the check could not test here) and
 * knownIssue.draft (a bug not reported upstream: its drafted report); version 6 each trial check's
 * trials.atOnce and floorMs, and each timeline entry's trial; version 7 the run's cpu (what the machine's
 * CPUs did meanwhile, null off the runtime's node) and each violation's knownIssue; version 8 each
 * result's startedAt (when the check started: with durationMs, the run's schedule); version 9 the run's
 * hookLane (how long the checks that hold NRI hooks in turn took the lane, null when none did).
 */
import type {
  CheckResult,
  KnownIssue,
  RunOutcome,
  TimelineEntry,
  ViolationRecord,
} from '../harness/check/result.js';
import { countVerdicts } from './tally.js';
import { cleanText } from './text.js';

export const JSON_SCHEMA_VERSION = 9;

export function renderJson(outcome: RunOutcome): string {
  const report = {
    schemaVersion: JSON_SCHEMA_VERSION,
    properties: {
      ...outcome.properties,
      node: outcome.properties.node ?? null,
      isolated: outcome.properties.isolated ?? null,
    },
    durationMs: Math.round(outcome.durationMs),
    interrupted: outcome.interrupted ?? null,
    notStarted: outcome.notStarted ?? null,
    staleDeviations: outcome.staleDeviations ?? null,
    runtimeCrashes: outcome.runtimeCrashes ?? null,
    cpu: outcome.cpu ?? null,
    hookLane: outcome.hookLane ?? null,
    summary: countVerdicts(outcome.results),
    results: outcome.results.map(resultJson),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

function resultJson(r: CheckResult) {
  return {
    id: r.id,
    suite: r.suite,
    title: r.title,
    level: r.level,
    tags: [...r.tags],
    contract: r.contract,
    verdict: r.verdict,
    durationMs: Math.round(r.durationMs),
    startedAt: r.startedAt ?? null,
    message: r.message === undefined ? null : cleanText(r.message),
    detail: r.detail === undefined ? null : cleanText(r.detail),
    observations: r.observations,
    trials: r.trials
      ? { run: r.trials.run, violated: r.trials.violated, atOnce: r.trials.atOnce ?? null }
      : null,
    requiredWaitMs: r.requiredWaitMs ?? null,
    floorMs: r.floorMs ?? null,
    knownIssue: r.knownIssue ? knownIssueJson(r.knownIssue) : null,
    violations: r.violations?.map(violationJson) ?? null,
    notRun: r.notRun ?? null,
    timeline: r.timeline.map(entryJson),
  };
}

function knownIssueJson(k: KnownIssue) {
  return { ...k, draft: k.draft ?? null };
}

function violationJson(v: ViolationRecord) {
  return {
    clause: v.clause,
    message: cleanText(v.message),
    known: v.known,
    path: v.path ?? null,
    trials: v.trials ?? null,
    knownIssue: v.knownIssue ? knownIssueJson(v.knownIssue) : null,
  };
}

/** Absent optional timeline fields become null; message text loses ANSI codes. */
function entryJson(e: TimelineEntry) {
  switch (e.kind) {
    case 'cri':
      return {
        ...e,
        trial: e.trial ?? null,
        deadlineMs: e.deadlineMs ?? null,
        message: e.message === undefined ? null : cleanText(e.message),
      };
    case 'nri':
      return {
        ...e,
        trial: e.trial ?? null,
        containerId: e.containerId ?? null,
        containerName: e.containerName ?? null,
        note: e.note ?? null,
      };
    case 'note':
      return { ...e, trial: e.trial ?? null, text: cleanText(e.text) };
  }
}
