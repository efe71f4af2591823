/**
 * `cri-conform diff OLD.json NEW.json`: what changed between two runs. Exits 1 on any regression (a check
 * that got worse, or a new run that did not start), so a release job can gate on "nothing got worse".
 */
import type { Command } from 'commander';
import { UsageError } from './errors.js';
import { EXIT_FAILED, EXIT_OK } from './exit.js';
import type { Io } from './io.js';
import { readResults } from './report-inputs.js';

export function addDiff(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('diff')
    .description('compare two results.json files; exit 1 if any check got worse')
    .argument('<old.json>', 'the baseline run, e.g. the last release')
    .argument('<new.json>', 'the run to judge')
    .option(
      '--duration-threshold <percent>',
      'show duration changes of at least this much and 1 s (default 50)',
    )
    .addHelpText(
      'after',
      '\nA regression is a check whose verdict became failed or error. Fixes, new and removed checks are\n' +
        'shown but do not change the exit code.\n\nExamples:\n' +
        '  $ cri-conform diff last-release/results.json reports/results.json\n\n' +
        'Exit codes: 0 no regression, 1 a regression, 2 an unreadable file or bad usage.',
    )
    .action(async (oldFile: string, newFile: string, flags: { durationThreshold?: string }) => {
      const ratio = percent(flags.durationThreshold ?? '50');
      const [{ diffRuns, DEFAULT_DIFF_OPTIONS }, { diffLines }] = await Promise.all([
        import('../report/diff.js'),
        import('../report/diff-text.js'),
      ]);
      const d = diffRuns(await readResults(oldFile), await readResults(newFile), {
        ...DEFAULT_DIFF_OPTIONS,
        durationRatio: ratio,
      });
      io.out(`${diffLines(d).join('\n')}\n`);
      setExit(d.regressions > 0 ? EXIT_FAILED : EXIT_OK);
    });
}

function percent(text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !Number.isFinite(n))
    throw new UsageError(`--duration-threshold ${text}: expected a percentage such as 50`);
  return n / 100;
}
