/**
 * Many runs side by side: rows are checks in catalogue order, columns are runs. Runs of the same runtime
 * version, the same cri-conform version and the same verdicts fold into one column that counts its nodes,
 * so a fleet reads as a handful of columns. A row says whether its verdicts differ across columns and
 * whether they disagree among columns of one runtime version (a flaky check, or a node that differs).
 * Verdicts of different cri-conform versions are never called a disagreement, and a check a run did not
 * select is "not run", never a verdict. Pure: outcomes in, one Matrix out.
 */
import type { CheckResult, RunOutcome, Verdict } from '../harness/check/result.js';

export interface MatrixRun {
  outcome: RunOutcome;
  /** Where the run's node name comes from: the Sonobuoy node directory, else the run's own record. */
  node: string;
  /** The file (or tarball member) it was read from, for messages. */
  source: string;
}

export interface MatrixColumn {
  /** 'A', 'B', ...: short enough for a terminal column. */
  label: string;
  runtime: string;
  toolVersion: string;
  nriVersions: string[];
  runs: MatrixRun[];
  /** Check id to verdict; a check the runs did not select is absent. */
  verdicts: Map<string, Verdict>;
  /** The column's check results, from its first run (the others have the same verdicts). */
  results: Map<string, CheckResult>;
}

export type RowState =
  | 'same' // every column that ran it has the same verdict
  | 'differs' // verdicts differ between runtimes, versions or cri-conform versions
  | 'disagrees'; // columns of one runtime version and one cri-conform version have different verdicts

export interface MatrixRow {
  id: string;
  title: string;
  level: string;
  suite: string;
  cells: (Verdict | undefined)[];
  state: RowState;
  /** Per cell: another column of its runtime version and cri-conform version has another verdict. */
  disagreeing: boolean[];
}

export interface Matrix {
  columns: MatrixColumn[];
  rows: MatrixRow[];
  /** cri-conform versions, when runs of more than one are shown. */
  toolVersions: string[];
  /** True when the columns ran different sets of checks (levels, suites, focus or catalogue). */
  checkSetsDiffer: boolean;
}

export function buildMatrix(runs: readonly MatrixRun[], catalogueOrder: readonly string[] = []): Matrix {
  const columns = groupColumns(runs);
  const rows = orderedChecks(columns, catalogueOrder).map((r) => rowOf(r, columns));
  const toolVersions = [...new Set(columns.map((c) => c.toolVersion))];
  const sets = new Set(columns.map((c) => [...c.verdicts.keys()].sort().join(' ')));
  return { columns, rows, toolVersions, checkSetsDiffer: sets.size > 1 };
}

export function runtimeOf(outcome: RunOutcome): string {
  return `${outcome.properties.runtimeName} ${outcome.properties.runtimeVersion}`;
}

function groupColumns(runs: readonly MatrixRun[]): MatrixColumn[] {
  const groups = new Map<string, MatrixColumn>();
  for (const run of runs) {
    const verdicts = new Map(run.outcome.results.map((r) => [r.id, r.verdict]));
    const signature = [...verdicts].sort(([a], [b]) => a.localeCompare(b)).join(',');
    const key = [runtimeOf(run.outcome), run.outcome.properties.toolVersion, signature].join('\n');
    const column = groups.get(key);
    const nri = run.outcome.properties.nriVersion;
    if (column) {
      column.runs.push(run);
      if (!column.nriVersions.includes(nri)) column.nriVersions.push(nri);
      continue;
    }
    groups.set(key, {
      label: columnLabel(groups.size),
      runtime: runtimeOf(run.outcome),
      toolVersion: run.outcome.properties.toolVersion,
      nriVersions: [nri],
      runs: [run],
      verdicts,
      results: new Map(run.outcome.results.map((r) => [r.id, r])),
    });
  }
  return [...groups.values()];
}

/** A, B, ..., Z, AA, AB, ... */
function columnLabel(i: number): string {
  const letter = String.fromCharCode(65 + (i % 26));
  return i < 26 ? letter : `${columnLabel(Math.floor(i / 26) - 1)}${letter}`;
}

/** Every check any column ran: catalogue order first, then checks the catalogue does not know. */
function orderedChecks(columns: readonly MatrixColumn[], catalogueOrder: readonly string[]): CheckResult[] {
  const byId = new Map<string, CheckResult>();
  for (const c of columns) for (const [id, r] of c.results) if (!byId.has(id)) byId.set(id, r);
  const known = catalogueOrder.flatMap((id) => byId.get(id) ?? []);
  const rest = [...byId.values()].filter((r) => !catalogueOrder.includes(r.id));
  return [...known, ...rest];
}

function rowOf(r: CheckResult, columns: readonly MatrixColumn[]): MatrixRow {
  const cells = columns.map((c) => c.verdicts.get(r.id));
  const peerKey = (c: MatrixColumn) => `${c.runtime}\n${c.toolVersion}`;
  const verdictsOfPeers = new Map<string, Set<Verdict>>();
  cells.forEach((v, i) => {
    const key = peerKey(columns[i] as MatrixColumn);
    if (v !== undefined) verdictsOfPeers.set(key, (verdictsOfPeers.get(key) ?? new Set()).add(v));
  });
  const disagreeing = cells.map(
    (v, i) => v !== undefined && (verdictsOfPeers.get(peerKey(columns[i] as MatrixColumn))?.size ?? 0) > 1,
  );
  const distinct = new Set(cells.filter((v) => v !== undefined)).size;
  const state: RowState = disagreeing.some(Boolean) ? 'disagrees' : distinct > 1 ? 'differs' : 'same';
  return { id: r.id, title: r.title, level: r.level, suite: r.suite, cells, state, disagreeing };
}
