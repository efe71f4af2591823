/**
 * What changed between two runs, for release gating: verdict changes per check (a regression is a check
 * that got worse), new and removed checks, durations that moved past a threshold, and which runtime each
 * side ran against. Pure: two outcomes in, one RunDiff out.
 */
import type { CheckResult, RunOutcome, Verdict } from '../harness/check/result.js';

export type ChangeKind = 'regression' | 'fix' | 'changed' | 'new' | 'removed';

export interface CheckChange {
  id: string;
  title: string;
  kind: ChangeKind;
  old?: Verdict;
  new?: Verdict;
}

export interface DurationChange {
  id: string;
  oldMs: number;
  newMs: number;
}

export interface RunSide {
  runtime: string;
  toolVersion: string;
  startedAt: string;
  notStarted?: string;
}

export interface RunDiff {
  old: RunSide;
  new: RunSide;
  changes: CheckChange[];
  durations: DurationChange[];
  /** Checks that got worse, plus one when the new run did not start at all. */
  regressions: number;
}

export interface DiffOptions {
  /** A duration change is shown when it is at least this share of the old duration (0.5 = 50%)... */
  durationRatio: number;
  /** ...and at least this many milliseconds, so that 20 ms becoming 40 ms is not news. */
  durationMinMs: number;
}

export const DEFAULT_DIFF_OPTIONS: DiffOptions = { durationRatio: 0.5, durationMinMs: 1_000 };

/** Worse to better: a move to a lower rank is a regression, to a higher one a fix. */
const RANK: Record<Verdict, number> = {
  failed: 0,
  error: 0,
  skipped: 1,
  deviation: 2,
  observed: 2,
  passed: 2,
};

export function diffRuns(oldRun: RunOutcome, newRun: RunOutcome, opts = DEFAULT_DIFF_OPTIONS): RunDiff {
  const before = new Map(oldRun.results.map((r) => [r.id, r]));
  const after = new Map(newRun.results.map((r) => [r.id, r]));
  const changes: CheckChange[] = [];
  const durations: DurationChange[] = [];
  for (const n of newRun.results) {
    const o = before.get(n.id);
    if (!o) {
      changes.push({ id: n.id, title: n.title, kind: 'new', new: n.verdict });
      continue;
    }
    const kind = verdictChange(o, n);
    if (kind) changes.push({ id: n.id, title: n.title, kind, old: o.verdict, new: n.verdict });
    if (durationMoved(o.durationMs, n.durationMs, opts))
      durations.push({ id: n.id, oldMs: o.durationMs, newMs: n.durationMs });
  }
  // A run that did not start has no checks: that is one regression, not every check removed.
  for (const o of newRun.notStarted === undefined ? oldRun.results : []) {
    if (!after.has(o.id)) changes.push({ id: o.id, title: o.title, kind: 'removed', old: o.verdict });
  }
  const worse = changes.filter((c) => c.kind === 'regression').length;
  return {
    old: sideOf(oldRun),
    new: sideOf(newRun),
    changes,
    durations,
    regressions: worse + (newRun.notStarted !== undefined ? 1 : 0),
  };
}

function verdictChange(o: CheckResult, n: CheckResult): ChangeKind | undefined {
  if (o.verdict === n.verdict) return undefined;
  const delta = RANK[n.verdict] - RANK[o.verdict];
  if (delta < 0 && RANK[n.verdict] === 0) return 'regression';
  if (delta > 0 && RANK[o.verdict] === 0 && RANK[n.verdict] === 2) return 'fix';
  return 'changed';
}

function durationMoved(oldMs: number, newMs: number, opts: DiffOptions): boolean {
  const delta = Math.abs(newMs - oldMs);
  return delta >= opts.durationMinMs && delta >= opts.durationRatio * Math.max(oldMs, 1);
}

function sideOf(run: RunOutcome): RunSide {
  const p = run.properties;
  return {
    runtime: `${p.runtimeName} ${p.runtimeVersion}`,
    toolVersion: p.toolVersion,
    startedAt: p.startedAt,
    ...(run.notStarted !== undefined ? { notStarted: run.notStarted } : {}),
  };
}
