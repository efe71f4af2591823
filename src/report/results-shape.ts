/**
 * Whether a parsed results.json has the shape the readers rely on (report, diff, --baseline): every field
 * a renderer reads, with its type, as results.schema.json has it, in every schema version this cri-conform
 * reads (a field later versions added may be absent). The first problem comes back as one phrase naming the
 * field ("results[2] (NAME-01): suite must be a string, not missing"), so a hand-edited or foreign file gets
 * a sentence instead of a TypeError from deep in a renderer. Fields the reader fills in when they are odd
 * (trials, the words of violations, runtimeCrashes, cpu, hookLane) are not checked here.
 */
import { LEVELS } from '../harness/core/vocabulary.js';
import { JSON_SCHEMA_VERSION } from './json.js';
import { VERDICT_ORDER } from './tally.js';

const OLDEST_SCHEMA_VERSION = 1;
/** The version this cri-conform writes is the newest it reads. */
const NEWEST_SCHEMA_VERSION = JSON_SCHEMA_VERSION;

const TIMELINE_KINDS = ['cri', 'nri', 'note'] as const;

/** A field's type; a trailing '?' lets it be absent or null. A list of strings is an enum. */
type Base = 'string' | 'number' | 'object' | 'list' | 'strings';
type Expected = Base | `${Base}?`;
type Spec = Record<string, Expected | readonly string[]>;

const PROPERTIES: Spec = {
  runId: 'string',
  toolVersion: 'string',
  runtimeName: 'string',
  runtimeVersion: 'string',
  criApiVersion: 'string',
  nriVersion: 'string',
  endpoint: 'string',
  startedAt: 'string',
  flags: 'string',
  node: 'string?',
  kubelet: 'string?',
  os: 'string?',
  kernel: 'string?',
  nriSocket: 'string?',
  cgroup: 'object?',
  isolated: 'object?',
};
const CGROUP: Spec = { driver: 'string', driverSource: 'string', parent: 'string', parentSource: 'string' };
const NRI_TIMEOUTS: Spec = { requestMs: 'number', registrationMs: 'number' };

const RESULT: Spec = {
  id: 'string',
  suite: 'string',
  title: 'string',
  level: LEVELS,
  contract: 'string',
  verdict: VERDICT_ORDER,
  durationMs: 'number',
  startedAt: 'string?',
  tags: 'strings?',
  observations: 'object?',
  floorMs: 'object?',
  knownIssue: 'object?',
  notRun: 'list?',
  violations: 'list?',
  timeline: 'list',
};
const FLOOR: Spec = { sideBySide: 'number', serial: 'number' };
const KNOWN_ISSUE: Spec = { reason: 'string', links: 'strings' };
const NOT_RUN: Spec = { part: 'string', why: 'string' };

const ENTRY: Spec = { kind: TIMELINE_KINDS, seq: 'number', atMs: 'number', trial: 'number?' };
const ENTRY_OF_KIND: Record<(typeof TIMELINE_KINDS)[number], Spec> = {
  cri: {
    method: 'string',
    ids: 'string',
    code: 'string',
    latencyMs: 'number',
    deadlineMs: 'number?',
    message: 'string?',
  },
  nri: {
    plugin: 'string',
    event: 'string',
    podId: 'string',
    podName: 'string',
    containerId: 'string?',
    containerName: 'string?',
    note: 'string?',
  },
  note: { text: 'string' },
};

type Json = Record<string, unknown>;

/** The first thing the readers could not take in `doc`, or undefined. */
export function resultsShapeProblem(doc: unknown): string | undefined {
  if (!isObject(doc)) return 'the top level is not an object';
  return (
    schemaVersionProblem(doc.schemaVersion) ??
    fieldsProblem(doc, { properties: 'object', results: 'list' }, '') ??
    propertiesProblem(doc.properties as Json) ??
    firstOf(doc.results as unknown[], resultProblem)
  );
}

function schemaVersionProblem(v: unknown): string | undefined {
  if (typeof v !== 'number') return `schemaVersion must be a number, not ${describe(v)}`;
  if (Number.isInteger(v) && v > NEWEST_SCHEMA_VERSION)
    return `schemaVersion ${v} was written by a newer cri-conform (this one reads ${OLDEST_SCHEMA_VERSION} to ${NEWEST_SCHEMA_VERSION}): upgrade cri-conform to read it`;
  if (!Number.isInteger(v) || v < OLDEST_SCHEMA_VERSION)
    return `schemaVersion ${v} is not one of ${OLDEST_SCHEMA_VERSION} to ${NEWEST_SCHEMA_VERSION}`;
  return undefined;
}

function propertiesProblem(p: Json): string | undefined {
  const at = 'properties.';
  return (
    fieldsProblem(p, PROPERTIES, at) ??
    (isObject(p.cgroup) ? fieldsProblem(p.cgroup, CGROUP, `${at}cgroup.`) : undefined) ??
    nriTimeoutsProblem(p.nriTimeouts, `${at}nriTimeouts`)
  );
}

/** Absent, null, 'not sent' (an NRI before v0.7), or both timeouts in ms. */
function nriTimeoutsProblem(v: unknown, at: string): string | undefined {
  if (v === undefined || v === null || v === 'not sent') return undefined;
  if (!isObject(v)) return `${at} must be "not sent" or an object, not ${describe(v)}`;
  return fieldsProblem(v, NRI_TIMEOUTS, `${at}.`);
}

function resultProblem(r: unknown, i: number): string | undefined {
  if (!isObject(r)) return `results[${i}] must be an object, not ${describe(r)}`;
  const at = typeof r.id === 'string' ? `results[${i}] (${r.id}): ` : `results[${i}]: `;
  return (
    fieldsProblem(r, RESULT, at) ??
    observationsProblem(r.observations, at) ??
    (isObject(r.floorMs) ? fieldsProblem(r.floorMs, FLOOR, `${at}floorMs.`) : undefined) ??
    (isObject(r.knownIssue) ? fieldsProblem(r.knownIssue, KNOWN_ISSUE, `${at}knownIssue.`) : undefined) ??
    (Array.isArray(r.notRun) ? firstOf(r.notRun, itemsOf(NOT_RUN, `${at}notRun`)) : undefined) ??
    (Array.isArray(r.violations)
      ? firstOf(r.violations, (v, j) => violationProblem(v, `${at}violations[${j}]`))
      : undefined) ??
    firstOf(r.timeline as unknown[], (e, j) => entryProblem(e, `${at}timeline[${j}]`))
  );
}

/** The reader fills in a violation's odd fields, but renders its known issue as written. */
function violationProblem(v: unknown, at: string): string | undefined {
  if (!isObject(v) || !isObject(v.knownIssue)) return undefined;
  return fieldsProblem(v.knownIssue, KNOWN_ISSUE, `${at}.knownIssue.`);
}

function observationsProblem(o: unknown, at: string): string | undefined {
  if (!isObject(o)) return undefined;
  const spec: Spec = Object.fromEntries(Object.keys(o).map((k) => [k, 'string']));
  return fieldsProblem(o, spec, `${at}observations.`);
}

function entryProblem(e: unknown, at: string): string | undefined {
  if (!isObject(e)) return `${at} must be an object, not ${describe(e)}`;
  const common = fieldsProblem(e, ENTRY, `${at}.`);
  if (common) return common;
  return fieldsProblem(e, ENTRY_OF_KIND[e.kind as keyof typeof ENTRY_OF_KIND], `${at}.`);
}

function itemsOf(spec: Spec, at: string): (item: unknown, i: number) => string | undefined {
  return (item, i) =>
    isObject(item)
      ? fieldsProblem(item, spec, `${at}[${i}].`)
      : `${at}[${i}] must be an object, not ${describe(item)}`;
}

function firstOf<T>(
  list: readonly T[],
  problemOf: (item: T, i: number) => string | undefined,
): string | undefined {
  for (const [i, item] of list.entries()) {
    const problem = problemOf(item, i);
    if (problem) return problem;
  }
  return undefined;
}

function fieldsProblem(o: Json, spec: Spec, at: string): string | undefined {
  for (const [key, expected] of Object.entries(spec)) {
    const problem = valueProblem(o[key], expected);
    if (problem) return `${at}${key} must be ${problem}`;
  }
  return undefined;
}

/** "<what was expected>, not <what was found>" when `v` is not as expected. */
function valueProblem(v: unknown, expected: Expected | readonly string[]): string | undefined {
  if (typeof expected !== 'string') {
    if (typeof v === 'string' && expected.includes(v)) return undefined;
    return `one of ${expected.join(', ')}, not ${typeof v === 'string' ? quote(v) : describe(v)}`;
  }
  const optional = expected.endsWith('?');
  if (optional && (v === undefined || v === null)) return undefined;
  const type = (optional ? expected.slice(0, -1) : expected) as Base;
  const fits =
    type === 'object'
      ? isObject(v)
      : type === 'list'
        ? Array.isArray(v)
        : type === 'strings'
          ? Array.isArray(v) && v.every((s) => typeof s === 'string')
          : typeof v === type;
  if (fits) return undefined;
  const words: Record<Base, string> = {
    string: 'a string',
    number: 'a number',
    object: 'an object',
    list: 'a list',
    strings: 'a list of strings',
  };
  return `${words[type]}, not ${describe(v)}`;
}

function describe(v: unknown): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `the string ${quote(v)}`;
  if (typeof v === 'object') return 'an object';
  return `the ${typeof v} ${String(v)}`;
}

/** A value as JSON, cut short: it lands in a one-line message. */
function quote(s: string): string {
  const json = JSON.stringify(s);
  return json.length > 40 ? `${json.slice(0, 37)}…"` : json;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
