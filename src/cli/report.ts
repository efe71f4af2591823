/** `cri-conform report results.json --html FILE`: renders an earlier run's JSON as the HTML report. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import type { RunOutcome } from '../harness/result.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';

export function addReport(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('report')
    .description('render the results.json of an earlier run as a self-contained HTML report')
    .argument('<results.json>', 'the JSON report a run wrote')
    .requiredOption('--html <file>', 'where the HTML report goes')
    .option('--baseline <old.json>', 'add a comparison with this earlier run (as `cri-conform diff`)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ cri-conform report reports/results.json --html reports/report.html\n' +
        '  $ cri-conform report new/results.json --baseline v1.7.24/results.json --html report.html',
    )
    .action(async (file: string, flags: { html: string; baseline?: string }) => {
      const { renderHtml } = await import('../report/html/render-html.js');
      const outcome = await readResults(file);
      const baseline = flags.baseline ? await readResults(flags.baseline) : undefined;
      const { diffRuns } = await import('../report/diff.js');
      const html = renderHtml(outcome, baseline ? { diff: diffRuns(baseline, outcome) } : {});
      await mkdir(dirname(flags.html), { recursive: true });
      await writeFile(flags.html, html, 'utf8');
      io.out(`report: ${flags.html}\n`);
      setExit(0);
    });
}

/** A results file, or a UsageError naming what is wrong with it. */
export async function readResults(file: string): Promise<RunOutcome> {
  const { readResultsFile, ResultsFileError } = await import('../report/read-results.js');
  try {
    return await readResultsFile(file);
  } catch (e) {
    if (e instanceof ResultsFileError) throw new UsageError(e.message);
    throw e;
  }
}
