/**
 * The reports at the end of `run`, whatever happened: the normal ones, the diff against --baseline, and,
 * when the run could not start, a JUnit with one error case and a JSON that say why. A CI job that uploads
 * reports/ then never uploads an earlier run's success.
 */
import { hostname } from 'node:os';
import type { RunOutcome } from '../harness/check/result.js';
import type { RunConfig } from '../harness/core/settings.js';
import { instanceRecordOf } from '../harness/runtime-instance.js';
import type { WriteReportsOptions } from '../report/junit.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';
import { orUsageError } from './output-paths.js';
import { readResults } from './report-inputs.js';
import { TOOL_VERSION } from './version.js';

export interface ExtraReports {
  htmlFile?: string;
  baseline?: RunOutcome;
}

/** Reads --baseline before the run starts, so a wrong path fails in a second, not after the run. */
export async function loadExtraReports(flags: { html?: string; baseline?: string }): Promise<ExtraReports> {
  return {
    ...(flags.html ? { htmlFile: flags.html } : {}),
    ...(flags.baseline ? { baseline: await readResults(flags.baseline) } : {}),
  };
}

/**
 * Checks before the run starts that every report can be written (making --report-dir), so a typo in a path
 * costs a second, not the run's results.
 */
export async function checkReportPaths(config: RunConfig, extra: ExtraReports): Promise<void> {
  // The prefix is prepended to file names in --report-dir: with a "/" it would write elsewhere.
  if (config.reportPrefix.includes('/'))
    throw new UsageError(
      `--report-prefix ${config.reportPrefix}: a prefix of the report file names cannot hold "/"; choose the folder with --report-dir`,
    );
  const { reportPaths } = await import('../report/junit.js');
  const { checkOutputFile } = await import('../report/output-file.js');
  const paths = reportPaths(reportOptions(config, extra));
  const flag = flagOf(config, extra);
  const all = [paths.junit, paths.json, ...(paths.html ? [paths.html] : [])];
  // The files a flag named go first: without --report-dir, the folder of the others is theirs.
  const named = all.filter((p) => flag(p) !== '--report-dir');
  await orUsageError(async () => {
    for (const path of [...named, ...all.filter((p) => !named.includes(p))]) await checkOutputFile(path);
  }, flag);
}

export async function writeRunReports(
  outcome: RunOutcome,
  config: RunConfig,
  extra: ExtraReports,
  io: Io,
): Promise<void> {
  const [{ writeReports }, { diffRuns }, { diffLines }] = await Promise.all([
    import('../report/junit.js'),
    import('../report/diff.js'),
    import('../report/diff-text.js'),
  ]);
  const diff = extra.baseline ? diffRuns(extra.baseline, outcome) : undefined;
  if (diff) io.out(`\nCompared with the baseline\n${diffLines(diff).join('\n')}\n`);
  const files = await orUsageError(
    () => writeReports(outcome, { ...reportOptions(config, extra), ...(diff ? { diff } : {}) }),
    flagOf(config, extra),
  );
  io.out(`reports: ${files.join(', ')}\n`);
}

function reportOptions(config: RunConfig, extra: ExtraReports): WriteReportsOptions {
  return {
    dir: config.reportDir,
    prefix: config.reportPrefix,
    ...(config.junitFile ? { junitFile: config.junitFile } : {}),
    ...(config.jsonFile ? { jsonFile: config.jsonFile } : {}),
    ...(extra.htmlFile ? { htmlFile: extra.htmlFile } : {}),
  };
}

/** The flag that named an output path, to start the line that says it cannot be written. */
function flagOf(config: RunConfig, extra: ExtraReports): (path: string) => string {
  return (path) => {
    if (path === config.junitFile) return '--junit';
    if (path === config.jsonFile) return '--json';
    if (path === extra.htmlFile) return '--html';
    return '--report-dir';
  };
}

/** The outcome of a run that never produced a verdict: no results, and the reason in every report. */
export function notStartedOutcome(config: RunConfig, error: unknown): RunOutcome {
  const reason = error instanceof Error ? error.message : String(error);
  const isolated = instanceRecordOf(error);
  return {
    properties: {
      runId: 'not-started',
      toolVersion: TOOL_VERSION,
      runtimeName: 'unknown',
      runtimeVersion: 'unknown',
      criApiVersion: 'unknown',
      nriVersion: 'unknown',
      endpoint: config.runtimeEndpoint,
      startedAt: new Date().toISOString(),
      flags: config.flagsText,
      node: hostname(),
      ...(isolated === undefined ? {} : { isolated }),
    },
    results: [],
    durationMs: 0,
    notStarted: reason,
  };
}
