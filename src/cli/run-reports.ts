/**
 * The reports at the end of `run`, whatever happened: the normal ones, the diff against --baseline, and,
 * when the run could not start, a JUnit with one error case and a JSON that say why. A CI job that uploads
 * reports/ then never uploads an earlier run's success.
 */
import { hostname } from 'node:os';
import type { RunOutcome } from '../harness/check/result.js';
import type { RunConfig } from '../harness/core/settings.js';
import { instanceRecordOf } from '../harness/runtime-instance.js';
import type { Io } from './io.js';
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
  const files = await writeReports(outcome, {
    dir: config.reportDir,
    prefix: config.reportPrefix,
    ...(config.junitFile ? { junitFile: config.junitFile } : {}),
    ...(config.jsonFile ? { jsonFile: config.jsonFile } : {}),
    ...(extra.htmlFile ? { htmlFile: extra.htmlFile } : {}),
    ...(diff ? { diff } : {}),
  });
  io.out(`reports: ${files.join(', ')}\n`);
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
