/**
 * `cri-conform report`: renders earlier runs. One results.json with --html: the single-run HTML report.
 * Several results.json files or a Sonobuoy results tarball: the matrix across runs, as text on stdout
 * and, with --html, as one HTML file. --issue ID: a Markdown bug report for one failed check.
 */
import type { Command } from 'commander';
import type { RunOutcome } from '../harness/check/result.js';
import type { MatrixRun } from '../report/matrix.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';
import { orUsageError } from './output-paths.js';
import type { ReportInputs } from './report-inputs.js';

interface ReportFlags {
  html?: string;
  baseline?: string;
  issue?: string;
}

export function addReport(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('report')
    .description(
      'render earlier runs: one results.json as HTML, several (or a Sonobuoy results tarball) as a matrix, or a bug report for one failed check',
    )
    .argument('<results...>', 'results.json files a run wrote, or the tarball of `sonobuoy retrieve`')
    .option('--html <file>', 'write the HTML report (one run) or the HTML matrix (several runs)')
    .option('--baseline <old.json>', 'add a comparison with this earlier run (as `cri-conform diff`)')
    .option('--issue <ID>', 'print a Markdown bug report for this failed check, ready for an upstream issue')
    .addHelpText(
      'after',
      '\nExamples:\n  $ cri-conform report reports/results.json --html reports/report.html\n' +
        '  $ cri-conform report new/results.json --baseline v1.7.24/results.json --html report.html\n' +
        '  $ cri-conform report v1.7/results.json v2.1/results.json --html matrix.html\n' +
        '  $ cri-conform report "$(sonobuoy retrieve)" --html fleet.html\n' +
        '  $ cri-conform report reports/results.json --issue TEAR-16 > TEAR-16.md\n\n' +
        'Without --html, several runs print as a text matrix (for a terminal or a CI log).',
    )
    .action(async (files: string[], flags: ReportFlags) => {
      const { readReportInputs } = await import('./report-inputs.js');
      const inputs = await readReportInputs(files);
      for (const note of inputs.notes) io.err(`report: ${note}\n`);
      if (flags.issue !== undefined) {
        io.out(await bugReport(inputs.runs, flags.issue, flags));
      } else if (inputs.runs.length === 1 && !inputs.fromTarball && flags.html) {
        await singleRun(inputs.runs[0]?.outcome as RunOutcome, flags.html, flags.baseline);
        io.out(`report: ${flags.html}\n`);
      } else {
        if (flags.baseline) throw new UsageError(baselineMisuse(inputs, files, flags.baseline));
        await matrix(inputs.runs, inputs.notes, flags.html, io);
      }
      setExit(0);
    });
}

async function singleRun(outcome: RunOutcome, html: string, baselineFile?: string): Promise<void> {
  const [{ renderHtml }, { diffRuns }] = await Promise.all([
    import('../report/html/render-html.js'),
    import('../report/diff.js'),
  ]);
  const { readResults } = await import('./report-inputs.js');
  const baseline = baselineFile ? await readResults(baselineFile) : undefined;
  await writeOut(html, renderHtml(outcome, baseline ? { diff: diffRuns(baseline, outcome) } : {}));
}

async function matrix(runs: MatrixRun[], notes: string[], html: string | undefined, io: Io): Promise<void> {
  const [{ buildMatrix }, { matrixLines }, { ALL_CHECKS }] = await Promise.all([
    import('../report/matrix.js'),
    import('../report/matrix-text.js'),
    import('../../suites/index.js'),
  ]);
  const m = buildMatrix(
    runs,
    ALL_CHECKS.map((c) => c.id),
  );
  io.out(`${matrixLines(m).join('\n')}\n`);
  if (!html) return;
  const { renderMatrixHtml } = await import('../report/html/render-matrix.js');
  await writeOut(html, renderMatrixHtml(m, notes));
  io.out(`report: ${html}\n`);
}

async function bugReport(runs: MatrixRun[], id: string, flags: ReportFlags): Promise<string> {
  if (flags.html || flags.baseline)
    throw new UsageError('--issue prints Markdown: leave out --html and --baseline');
  if (runs.length !== 1)
    throw new UsageError(
      `--issue reports a failure of one run; ${runs.length} runs were given: pass one results.json`,
    );
  const [
    { issueReport, IssueReportError },
    { ALL_CHECKS },
    { withCurrentKnownIssues },
    { loadBundledDeviations },
  ] = await Promise.all([
    import('../report/issue-report.js'),
    import('../../suites/index.js'),
    import('../harness/deviations/deviations.js'),
    import('../harness/deviations/deviation-file.js'),
  ]);
  const check = ALL_CHECKS.find((c) => c.id === id.toUpperCase());
  // The known issue as this cri-conform knows it: one filed or drafted after the run is named too.
  const outcome = withCurrentKnownIssues(runs[0]?.outcome as RunOutcome, loadBundledDeviations());
  try {
    return issueReport(outcome, id.toUpperCase(), check ? { needs: check.needs } : undefined);
  } catch (e) {
    if (e instanceof IssueReportError) throw new UsageError(`--issue ${id}: ${e.message}`);
    throw e;
  }
}

/** Why --baseline cannot be taken here: it needs one run and --html. */
function baselineMisuse(inputs: ReportInputs, files: string[], baseline: string): string {
  if (inputs.runs.length > 1 || inputs.fromTarball)
    return '--baseline compares two runs: with several runs, their matrix already does';
  return `--baseline adds a comparison to the HTML report of one run: add --html <file>, or run \`cri-conform diff ${baseline} ${files[0]}\` for the comparison as text`;
}

async function writeOut(file: string, content: string): Promise<void> {
  const { writeOutputFile } = await import('../report/output-file.js');
  await orUsageError(
    () => writeOutputFile(file, content),
    () => '--html',
  );
}
