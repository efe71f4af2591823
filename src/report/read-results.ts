/**
 * Reads a results.json back into a RunOutcome, for `report` and `diff`. It accepts schema versions 1 to 8
 * (each lacks the fields later ones added) and checks the shape it relies on first (results-shape.ts), so a
 * wrong file gives one clear sentence naming the field instead of a crash deep in a renderer.
 */
import { readFile } from 'node:fs/promises';
import type { HookLaneUse } from '../harness/check/lane-use.js';
import type {
  CheckResult,
  RunOutcome,
  RunProperties,
  RuntimeCrash,
  TimelineEntry,
  ViolationRecord,
} from '../harness/check/result.js';
import type { MachineCpu } from '../harness/host/machine-cpu.js';
import { resultsShapeProblem } from './results-shape.js';

export class ResultsFileError extends Error {
  readonly code = 'ERR_RESULTS_FILE';
  override readonly name = 'ResultsFileError';
}

export async function readResultsFile(path: string): Promise<RunOutcome> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ResultsFileError(`cannot read ${path} (${code}): pass the results.json a run wrote`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ResultsFileError(`${path} is not JSON: pass the results.json a run wrote`);
  }
  return parseResults(doc, path);
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Pure: a parsed results.json to a RunOutcome; `source` names the file in errors. */
export function parseResults(doc: unknown, source: string): RunOutcome {
  const bad = (what: string) => new ResultsFileError(`${source} is not a cri-conform results file: ${what}`);
  const problem = resultsShapeProblem(doc);
  if (problem !== undefined || !isObject(doc)) throw bad(problem ?? 'the top level is not an object');
  const results = (doc.results as Json[]).map(resultOf);
  return {
    properties: doc.properties as unknown as RunProperties,
    results,
    durationMs: typeof doc.durationMs === 'number' ? doc.durationMs : 0,
    ...optionalString(doc, 'interrupted'),
    ...optionalString(doc, 'notStarted'),
    ...(Array.isArray(doc.staleDeviations) ? { staleDeviations: doc.staleDeviations.map(String) } : {}),
    ...(Array.isArray(doc.runtimeCrashes) ? { runtimeCrashes: doc.runtimeCrashes.map(crashOf) } : {}),
    ...(isObject(doc.cpu) ? { cpu: cpuOf(doc.cpu) } : {}),
    ...(isObject(doc.hookLane) ? { hookLane: hookLaneOf(doc.hookLane) } : {}),
  };
}

function crashOf(c: unknown): RuntimeCrash {
  const o = isObject(c) ? c : {};
  return {
    check: String(o.check ?? ''),
    beside: Array.isArray(o.beside) ? o.beside.map(String) : [],
    evidence: String(o.evidence ?? ''),
  };
}

/** The run's CPU record (version 7 on; null off the runtime's node). */
function cpuOf(c: Json): MachineCpu {
  const n = (k: keyof MachineCpu) => Number(c[k] ?? 0);
  return {
    cores: n('cores'),
    busySeconds: n('busySeconds'),
    busyPct: n('busyPct'),
    floorMs: n('floorMs'),
    toolSeconds: n('toolSeconds'),
  };
}

/** The run's use of the hook lane (version 9 on; null when no check held a hook in it). */
function hookLaneOf(l: Json): HookLaneUse {
  const byCheck = Array.isArray(l.byCheck) ? l.byCheck.filter(isObject) : [];
  return {
    turns: Number(l.turns ?? 0),
    takenMs: Number(l.takenMs ?? 0),
    spanMs: Number(l.spanMs ?? 0),
    byCheck: byCheck.map((c) => ({
      id: String(c.id ?? ''),
      turns: Number(c.turns ?? 0),
      takenMs: Number(c.takenMs ?? 0),
    })),
  };
}

function optionalString<K extends string>(o: Json, key: K): Partial<Record<K, string>> {
  const v = o[key];
  return typeof v === 'string' ? ({ [key]: v } as Record<K, string>) : {};
}

function resultOf(r: Json): CheckResult {
  const {
    message,
    detail,
    startedAt,
    trials,
    requiredWaitMs,
    floorMs,
    knownIssue,
    violations,
    notRun,
    timeline,
    ...rest
  } = r;
  return {
    ...(rest as unknown as Omit<CheckResult, 'timeline'>),
    observations: isObject(r.observations) ? (r.observations as Record<string, string>) : {},
    tags: Array.isArray(r.tags) ? (r.tags as CheckResult['tags']) : [],
    ...optionalString(r, 'message'),
    ...optionalString(r, 'detail'),
    ...optionalString(r, 'startedAt'),
    ...(isObject(trials) ? { trials: trialsOf(trials) } : {}),
    ...(typeof requiredWaitMs === 'number' ? { requiredWaitMs } : {}),
    ...(isObject(floorMs) ? { floorMs: floorMs as unknown as NonNullable<CheckResult['floorMs']> } : {}),
    ...(isObject(knownIssue) ? { knownIssue: knownIssueOf(knownIssue) } : {}),
    ...(Array.isArray(violations) ? { violations: violations.map(violationOf) } : {}),
    ...(Array.isArray(notRun) && notRun.length > 0
      ? { notRun: notRun as unknown as NonNullable<CheckResult['notRun']> }
      : {}),
    timeline: (timeline as Json[]).map(entryOf),
  };
}

/** The trials as the file has them (atOnce is null or absent before version 6). */
function trialsOf(t: Json): NonNullable<CheckResult['trials']> {
  return {
    run: Number(t.run ?? 0),
    violated: Number(t.violated ?? 0),
    ...(typeof t.atOnce === 'number' ? { atOnce: t.atOnce } : {}),
  };
}

/** A known issue as written; its draft is null (version 5) or absent (before) for a tracked issue. */
function knownIssueOf(k: Json): NonNullable<CheckResult['knownIssue']> {
  const { draft, ...rest } = k;
  return {
    ...(rest as unknown as NonNullable<CheckResult['knownIssue']>),
    ...(typeof draft === 'string' ? { draft } : {}),
  };
}

/** A violation as the file has it (null for an absent path or trials). */
function violationOf(v: unknown): ViolationRecord {
  const o = isObject(v) ? v : {};
  return {
    clause: String(o.clause ?? ''),
    message: String(o.message ?? ''),
    known: o.known === true,
    ...(typeof o.path === 'string' ? { path: o.path } : {}),
    ...(Array.isArray(o.trials) ? { trials: o.trials.map(Number) } : {}),
    ...(isObject(o.knownIssue) ? { knownIssue: knownIssueOf(o.knownIssue) } : {}),
  };
}

/** JSON null stands for an absent optional field; the in-memory types use absence. */
function entryOf(e: Json): TimelineEntry {
  const out: Json = {};
  for (const [k, v] of Object.entries(e)) {
    if (v !== null || k === 'deadlineMs') out[k] = v ?? undefined;
  }
  return out as unknown as TimelineEntry;
}
