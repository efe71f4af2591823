/**
 * The JUnit report, valid against the common Jenkins JUnit schema (junit-jenkins.xsd beside this file
 * encodes the constraints we rely on): one <testsuite> per suite whose <properties> hold the run's metadata
 * only, one <testcase> per check with its own <properties> (level, observations), and each check's timeline
 * in <system-out>. A run that could not start is one error case that says why.
 */
import { join } from 'node:path';
import jrb, { type Builder, type TestCase, type TestSuite } from 'junit-report-builder';
import {
  type CheckResult,
  describeCgroup,
  describeCrash,
  describeTracking,
  knownIssuesOf,
  type RunOutcome,
  type RunProperties,
} from '../harness/check/result.js';
import type { RunDiff } from './diff.js';
import { renderHtml } from './html/render-html.js';
import { renderJson } from './json.js';
import { writeOutputFile } from './output-file.js';
import { groupBySuite } from './tally.js';
import { cleanText, describeNotRun, describeNriTimeouts, formatTimelineEntry } from './text.js';

const PROPERTY_KEYS: readonly Exclude<keyof RunProperties, 'isolated' | 'nriTimeouts' | 'cgroup'>[] = [
  'runId',
  'toolVersion',
  'runtimeName',
  'runtimeVersion',
  'criApiVersion',
  'nriVersion',
  'endpoint',
  'startedAt',
  'flags',
  'node',
  'kubelet',
  'os',
  'kernel',
];

/** Renders the outcome as JUnit XML. Pure: a fresh builder per call, no files. */
export function renderJUnit(outcome: RunOutcome): string {
  const builder = rootBuilder().newBuilder().name('cri-conform');
  if (outcome.notStarted !== undefined) return renderNotStarted(builder, outcome);
  for (const [suite, results] of groupBySuite(outcome.results)) {
    const ts = builder
      .testSuite()
      .name(suite)
      .timestamp(outcome.properties.startedAt)
      .time(seconds(results.reduce((sum, r) => sum + r.durationMs, 0)));
    addRunProperties(ts, outcome.properties);
    if (outcome.interrupted) ts.property('interrupted', xmlText(outcome.interrupted));
    const stale = outcome.staleDeviations ?? [];
    if (stale.length > 0) ts.property('staleDeviations', xmlText(stale.join('\n')));
    for (const r of results) addCase(ts.testCase(), r);
  }
  addCrashes(builder, outcome);
  return dropRootSkipped(builder.build());
}

/** A crash of the runtime is a failure of the run in its own right: one failed case each, in suite "runtime". */
function addCrashes(builder: Builder, outcome: RunOutcome): void {
  const crashes = outcome.runtimeCrashes ?? [];
  if (crashes.length === 0) return;
  const ts = builder.testSuite().name('runtime').timestamp(outcome.properties.startedAt).time(0);
  addRunProperties(ts, outcome.properties);
  for (const crash of crashes) {
    const text = xmlText(describeCrash(crash));
    ts.testCase()
      .className('cri-conform.runtime')
      .name(xmlText(`runtime crash during ${crash.check}`))
      .property('check', crash.check)
      .failure(text, 'runtime-crash');
  }
}

/** The run's metadata: the only properties a suite carries. */
function addRunProperties(ts: TestSuite, props: RunProperties): void {
  for (const key of PROPERTY_KEYS) {
    const value = props[key];
    if (value !== undefined) ts.property(key, xmlText(value));
  }
  if (props.nriTimeouts !== undefined) ts.property('nriTimeouts', describeNriTimeouts(props.nriTimeouts));
  if (props.cgroup) ts.property('cgroup', xmlText(describeCgroup(props.cgroup)));
  const isolated = props.isolated;
  if (isolated) {
    const { path, version, sha256 } = isolated.binary;
    ts.property('isolated', xmlText(`${path} (${version}, sha256 ${sha256}) with ${isolated.sourceConfig}`));
  }
}

/** One suite, one error case: CI shows why there is no verdict instead of an old report or nothing. */
function renderNotStarted(builder: Builder, outcome: RunOutcome): string {
  const why = xmlText(outcome.notStarted ?? '');
  const ts = builder.testSuite().name('run').timestamp(outcome.properties.startedAt).time(0);
  addRunProperties(ts, outcome.properties);
  ts.testCase()
    .className('cri-conform.run')
    .name('the run could not start')
    .error(why, 'not-started', cdata(why));
  return dropRootSkipped(builder.build());
}

function addCase(tc: TestCase, r: CheckResult): void {
  // The level is in the classname too, so a CI report groups MUST, SHOULD and OBSERVE apart.
  tc.className(`cri-conform.${r.suite}.${r.level}`)
    .name(xmlText(`${r.id} ${r.title} [${r.level}]`))
    .time(seconds(r.durationMs));
  tc.property('id', r.id).property('level', r.level);
  if (r.trials)
    tc.property('trials.run', String(r.trials.run)).property('trials.violated', String(r.trials.violated));
  const issues = knownIssuesOf(r);
  if (issues.length > 0)
    tc.property(
      'knownIssue',
      xmlText(issues.map((k) => `${k.reason} ${describeTracking(k)}`).join('; and: ')),
    );
  // The clause of the contract the failure broke (the first violation decides a FAIL).
  const broke = r.verdict === 'failed' || r.verdict === 'deviation' ? r.violations?.[0] : undefined;
  if (broke?.clause) tc.property('clause', xmlText(broke.clause));
  for (const [key, value] of Object.entries(r.observations)) tc.property(xmlText(key), xmlText(value));
  const notRun = describeNotRun(r);
  if (notRun) tc.property('notRun', xmlText(notRun));
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
  // A PASS with a part not run says so first: CI shows a passed case's output, never its properties.
  const notRun = describeNotRun(r);
  if (notRun && r.verdict === 'passed') lines.push(`PASS (${xmlText(notRun)})`, '');
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
  /** The folder of the reports not named below; made (with parents) when one is written there. */
  dir: string;
  /** Prepended to the default file names; default ''. */
  prefix?: string;
  /** Overrides <dir>/<prefix>junit.xml. */
  junitFile?: string;
  /** Overrides <dir>/<prefix>results.json. */
  jsonFile?: string;
  /** Also write the HTML report here (no default: HTML is asked for with --html). */
  htmlFile?: string;
  /** A comparison with a baseline run, shown in the HTML report. */
  diff?: RunDiff;
}

/** Where writeReports puts each report, JUnit first. */
export function reportPaths(opts: WriteReportsOptions): { junit: string; json: string; html?: string } {
  const prefix = opts.prefix ?? '';
  return {
    junit: opts.junitFile ?? join(opts.dir, `${prefix}junit.xml`),
    json: opts.jsonFile ?? join(opts.dir, `${prefix}results.json`),
    ...(opts.htmlFile ? { html: opts.htmlFile } : {}),
  };
}

/**
 * Writes the JUnit and JSON reports (and the HTML one if asked); resolves with the paths, JUnit first.
 * A path that cannot be written rejects with an OutputPathError naming it.
 */
export async function writeReports(outcome: RunOutcome, opts: WriteReportsOptions): Promise<string[]> {
  const paths = reportPaths(opts);
  const files: [string, string][] = [
    [paths.junit, renderJUnit(outcome)],
    [paths.json, renderJson(outcome)],
  ];
  if (paths.html) files.push([paths.html, renderHtml(outcome, opts.diff ? { diff: opts.diff } : {})]);
  for (const [path, content] of files) await writeOutputFile(path, content);
  return files.map(([path]) => path);
}
