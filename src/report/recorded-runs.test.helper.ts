/**
 * Recorded `--level all` runs for the matrix and bug-report tests: containerd 1.7.24 and 2.1.9 on this
 * project's instances (fixtures/results, trimmed: passing checks keep their timelines only where a test
 * opens them), and a synthetic third runtime made from the 1.7 run, with verdicts of its own, one check
 * it did not run and a different cri-conform version, so every matrix case shows in three columns.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunOutcome, Verdict } from '../harness/check/result.js';
import type { MatrixRun } from './matrix.js';
import { packageRoot } from './package-root.test.helper.js';
import { parseResults } from './read-results.js';

export const RECORDED = {
  containerd17: 'fixtures/results/containerd-1.7.json',
  containerd21: 'fixtures/results/containerd-2.1.json',
};

export function recordedRun(path: string): RunOutcome {
  return parseResults(JSON.parse(readFileSync(join(packageRoot(), path), 'utf8')), path);
}

export function asMatrixRun(outcome: RunOutcome, node = outcome.properties.node ?? 'unknown'): MatrixRun {
  return { outcome, node, source: `${node}.json` };
}

/** The same run on another node, with `changes` to its verdicts (a flaky check, a node that differs). */
export function onNode(outcome: RunOutcome, node: string, changes: Record<string, Verdict> = {}): MatrixRun {
  const copy: RunOutcome = {
    ...outcome,
    properties: { ...outcome.properties, node },
    results: outcome.results.map((r) => (changes[r.id] ? { ...r, verdict: changes[r.id] as Verdict } : r)),
  };
  return asMatrixRun(copy, node);
}

export const SYNTHETIC = { runtime: 'synthetic-runtime', version: '0.9.0', toolVersion: '0.0.9' };

export function syntheticRun(): RunOutcome {
  const base = recordedRun(RECORDED.containerd17);
  const verdicts: Record<string, Verdict> = { 'HOOK-02': 'failed', 'TEAR-05': 'passed', 'IDEM-03': 'error' };
  return {
    ...base,
    properties: {
      ...base.properties,
      runtimeName: SYNTHETIC.runtime,
      runtimeVersion: SYNTHETIC.version,
      toolVersion: SYNTHETIC.toolVersion,
      nriVersion: 'absent',
      node: 'synthetic-node',
    },
    results: base.results
      .filter((r) => r.id !== 'TEAR-16')
      .map((r) => (verdicts[r.id] ? { ...r, verdict: verdicts[r.id] as Verdict } : r)),
  };
}
