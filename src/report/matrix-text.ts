/**
 * The matrix for a terminal or a CI log: a legend line per column (runtime, NRI, nodes, date), one row per
 * check with a short verdict per column, a mark where runs differ, and a closing list of those checks.
 * Plain ASCII marks, so a log viewer without colour still shows them.
 */
import type { Verdict } from '../harness/check/result.js';
import type { Matrix, MatrixColumn, MatrixRow } from './matrix.js';

const SHORT: Record<Verdict, string> = {
  passed: 'pass',
  failed: 'FAIL',
  error: 'ERROR',
  skipped: 'skip',
  deviation: 'dev',
  observed: 'obs',
};
const NOT_RUN = '-';
const MARK: Record<MatrixRow['state'], string> = { same: '', differs: '<>', disagrees: '!!' };

export function matrixLines(m: Matrix): string[] {
  const lines = m.columns.flatMap((c) => [
    `${c.label}: ${describeColumn(c)}`,
    ...runNotes(c).map((n) => `   ${n}`),
  ]);
  if (m.toolVersions.length > 1)
    lines.push(
      `note: runs of cri-conform ${m.toolVersions.join(', ')}: a check may mean different things in each, so their verdicts are not called disagreements`,
    );
  if (m.checkSetsDiffer)
    lines.push(
      `note: the columns ran different sets of checks; "${NOT_RUN}" is a check a run did not select`,
    );
  lines.push('');
  const width = Math.max(5, ...m.columns.map((c) => c.label.length));
  const idWidth = Math.max(5, ...m.rows.map((r) => r.id.length));
  const levelWidth = Math.max(5, ...m.rows.map((r) => r.level.length));
  const head = [
    'check'.padEnd(idWidth),
    'level'.padEnd(levelWidth),
    ...m.columns.map((c) => c.label.padEnd(width)),
  ];
  lines.push(`${head.join(' ')}`.trimEnd());
  for (const r of m.rows) {
    const cells = r.cells.map((v, i) => {
      const text = v === undefined ? NOT_RUN : SHORT[v];
      return `${text}${r.disagreeing[i] ? '!' : ''}`.padEnd(width);
    });
    lines.push(
      [r.id.padEnd(idWidth), r.level.padEnd(levelWidth), ...cells, MARK[r.state]].join(' ').trimEnd(),
    );
  }
  lines.push('', ...summary(m));
  return lines;
}

export function describeColumn(c: MatrixColumn): string {
  const nodes = [...new Set(c.runs.map((r) => r.node))];
  const dates = c.runs.map((r) => r.outcome.properties.startedAt.slice(0, 16).replace('T', ' ')).sort();
  const when = dates[0] === dates.at(-1) ? dates[0] : `${dates[0]} to ${dates.at(-1)}`;
  const nodeText =
    nodes.length <= 3 ? nodes.join(', ') : `${nodes.slice(0, 3).join(', ')} and ${nodes.length - 3} more`;
  const runs = c.runs.length === 1 ? '1 run' : `${c.runs.length} runs`;
  return (
    `${c.runtime}, NRI ${c.nriVersions.join('/')}, ${nodes.length === 1 ? 'node' : `${nodes.length} nodes:`} ` +
    `${nodeText}, ${when} UTC, cri-conform ${c.toolVersion}, ${c.verdicts.size} checks (${runs})`
  );
}

/** Runs of a column that did not start or stopped early: their verdicts are missing, not passing. */
export function runNotes(c: MatrixColumn): string[] {
  return c.runs.flatMap((r) => {
    const o = r.outcome;
    if (o.notStarted !== undefined) return [`${r.node}: the run did not start: ${o.notStarted}`];
    if (o.interrupted) return [`${r.node}: the run was interrupted: ${o.interrupted}`];
    return [];
  });
}

function summary(m: Matrix): string[] {
  const ids = (state: MatrixRow['state']) => m.rows.filter((r) => r.state === state).map((r) => r.id);
  const differs = ids('differs');
  const disagrees = ids('disagrees');
  const out: string[] = [];
  out.push(
    differs.length === 0
      ? 'no check differs across columns'
      : `${MARK.differs} differs across columns (${differs.length}): ${differs.join(', ')}`,
  );
  if (disagrees.length > 0)
    out.push(
      `${MARK.disagrees} runs of the same runtime version disagree (${disagrees.length}), a flaky check or a node that differs: ${disagrees.join(', ')}`,
    );
  return out;
}
