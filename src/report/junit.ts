/**
 * The JUnit report, valid against the common Jenkins JUnit schema (junit-jenkins.xsd beside this file
 * encodes the constraints we rely on): one <testsuite> per suite with the run properties, one <testcase>
 * per check, and each check's timeline in <system-out>.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import jrb, { type Builder, type TestCase } from 'junit-report-builder';
import type { CheckResult, RunOutcome, RunProperties } from '../harness/result.js';
import { renderJson } from './json.js';
import { groupBySuite } from './tally.js';
import { cleanText, formatTimelineEntry } from './text.js';

const PROPERTY_KEYS: readonly (keyof RunProperties)[] = [
  'runId',
  'toolVersion',
  'runtimeName',
  'runtimeVersion',
  'criApiVersion',
  'nriVersion',
  'endpoint',
  'startedAt',
  'flags',
];

/** Renders the outcome as JUnit XML. Pure: a fresh builder per call, no files. */
export function renderJUnit(outcome: RunOutcome): string {
  const builder = rootBuilder().newBuilder().name('cri-conform');
  for (const [suite, results] of groupBySuite(outcome.results)) {
    const ts = builder
      .testSuite()
      .name(suite)
      .timestamp(outcome.properties.startedAt)
      .time(seconds(results.reduce((sum, r) => sum + r.durationMs, 0)));
    for (const key of PROPERTY_KEYS) ts.property(key, xmlText(outcome.properties[key]));
    if (outcome.interrupted) ts.property('interrupted', xmlText(outcome.interrupted));
    const stale = outcome.staleDeviations ?? [];
    if (stale.length > 0) ts.property('staleDeviations', xmlText(stale.join('\n')));
    // Testcase-level <properties> are not in the Jenkins schema, so observations go on the suite too.
    for (const r of results) {
      for (const [key, value] of Object.entries(r.observations))
        ts.property(`${r.id}.${key}`, xmlText(value));
    }
    for (const r of results) addCase(ts.testCase(), r);
  }
  return dropRootSkipped(builder.build());
}

function addCase(tc: TestCase, r: CheckResult): void {
  tc.className(`cri-conform.${r.suite}`)
    .name(xmlText(`${r.id} ${r.title} [${r.level}]`))
    .time(seconds(r.durationMs));
  const message = xmlText(r.message ?? '');
  const timeline = r.timeline.map(formatTimelineEntry);
  switch (r.verdict) {
    case 'failed':
      tc.failure(message, 'failure').stacktrace(cdata([message, '', 'timeline:', ...timeline].join('\n')));
      break;
    case 'error':
      tc.error(message, 'error', cdata(xmlText(r.detail ?? r.message ?? '')));
      break;
    case 'skipped':
      skipWithMessage(tc, message);
      break;
    case 'deviation':
      skipWithMessage(
        tc,
        message.startsWith('expected deviation') ? message : `expected deviation: ${message}`,
      );
      break;
    case 'passed':
    case 'observed':
      break;
  }
  const out = systemOut(r, timeline);
  if (out) tc.standardOutput(cdata(out));
}

/** Observations, trial counts, then the timeline: what a reader needs to see how the check went. */
function systemOut(r: CheckResult, timeline: string[]): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(r.observations)) lines.push(`${key}=${xmlText(value)}`);
  if (r.trials) lines.push(`trials=${r.trials.run} violated=${r.trials.violated}`);
  if (timeline.length > 0) lines.push(...(lines.length > 0 ? [''] : []), 'timeline:', ...timeline);
  return lines.join('\n');
}

/** Minimal view of the xmlbuilder element TestCase.build returns. */
interface BuiltElement {
  children: { name?: unknown; att?: (name: string, value: string) => unknown }[];
}

/**
 * junit-report-builder 5 writes a bare <skipped/>; the reason belongs in its message attribute, which
 * Jenkins and GitLab show. Wrap this one case's build to set it on the element it creates.
 */
function skipWithMessage(tc: TestCase, message: string): void {
  tc.skipped();
  const build = tc.build.bind(tc);
  tc.build = (parent) => {
    const el = build(parent);
    for (const child of (el as unknown as BuiltElement).children) {
      if (child.name === 'skipped') child.att?.('message', message);
    }
    return el;
  };
}

/**
 * The Jenkins schema allows tests/failures/errors (not skipped) on <testsuites>; the builder adds skipped.
 * The counts per suite keep it, so dropping it from the root loses nothing.
 */
function dropRootSkipped(xml: string): string {
  return xml.replace(/<testsuites\b[^>]*>/, (tag) => tag.replace(/\s+skipped="\d+"/, ''));
}

/**
 * xmlbuilder escapes only the first "]]>" in a CDATA section (it uses String.replace with a string), so a
 * second one would end the section early. Break every occurrence ourselves.
 */
function cdata(s: string): string {
  return s.replaceAll(']]>', ']] >');
}

function xmlText(s: string): string {
  return cleanText(s);
}

/** Seconds with millisecond precision, never in exponent notation (xs:decimal has none). */
function seconds(ms: number): number {
  return Math.max(0, Math.round(ms)) / 1_000;
}

/**
 * The package is CommonJS (`module.exports = builder`) while its types declare `export default`, so under
 * NodeNext TypeScript expects the builder on `.default` and Node puts it on the import itself.
 */
function rootBuilder(): Builder {
  const mod = jrb as unknown as Builder & { default?: Builder };
  return typeof mod.newBuilder === 'function' ? mod : (mod.default as Builder);
}

export interface WriteReportsOptions {
  /** Created (with parents) if missing. */
  dir: string;
  /** Prepended to the default file names; default ''. */
  prefix?: string;
  /** Overrides <dir>/<prefix>junit.xml. */
  junitFile?: string;
  /** Overrides <dir>/<prefix>results.json. */
  jsonFile?: string;
}

/** Writes the JUnit and JSON reports; resolves with the paths written, JUnit first. */
export async function writeReports(outcome: RunOutcome, opts: WriteReportsOptions): Promise<string[]> {
  const prefix = opts.prefix ?? '';
  await mkdir(opts.dir, { recursive: true });
  const files: [string, string][] = [
    [opts.junitFile ?? join(opts.dir, `${prefix}junit.xml`), renderJUnit(outcome)],
    [opts.jsonFile ?? join(opts.dir, `${prefix}results.json`), renderJson(outcome)],
  ];
  for (const [path, content] of files) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content, 'utf8');
  }
  return files.map(([path]) => path);
}
