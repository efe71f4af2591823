/** `cri-conform list`: the catalogue, for people and for machines. */
import type { Command } from 'commander';
import { selectChecks } from '../harness/check/selection.js';
import { countOf } from '../report/text.js';
import { catalogueMarkdown, longListing } from './catalogue-text.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';
import { addSelectionOptions } from './options.js';
import { type RunFlags, resolveSelection } from './resolve-config.js';

/** Where `list --long` wraps its text on a terminal; piped output keeps one line per field. */
const TERMINAL_WIDTH = 100;

export function addList(program: Command, io: Io): void {
  const cmd = program
    .command('list')
    .description(
      'list every check: ID, level, tags and title; --long adds its contract (filters as in run; every level unless --level)',
    );
  addSelectionOptions(cmd)
    .option('--long', "each check's title and the contract it cites")
    .option('--markdown', 'the catalogue as Markdown (docs/checks.md is this output)')
    .option('--json', 'one JSON document: [{id, suite, level, tags, needs, uses, title, contract}]')
    .addHelpText(
      'after',
      '\nExamples:\n  $ cri-conform list\n  $ cri-conform list --long --focus HOOK-03\n  $ cri-conform list --suite hooks --json | jq -r ".[].id"',
    )
    .action(async (flags: RunFlags & { json?: boolean; long?: boolean; markdown?: boolean }) => {
      const formats = (['json', 'markdown', 'long'] as const).filter((f) => flags[f]);
      if (formats.length > 1)
        throw new UsageError(`--${formats.join(' and --')}: each chooses the output; give one`);
      const selection = resolveSelection({ level: 'all', ...flags });
      const { ALL_CHECKS } = await import('../../suites/index.js');
      const checks = selectChecks(ALL_CHECKS, selection);
      // As for run: a filter that matches nothing is a typo, never an empty catalogue.
      if (checks.length === 0)
        throw new UsageError(
          'the selection (--suite/--level/--focus/--skip) selects no check; leave them out to list all',
        );
      if (flags.json) {
        const rows = checks.map(({ id, suite, level, tags, needs, uses, title, contract, trials }) => ({
          id,
          suite,
          level,
          tags,
          needs,
          uses,
          trials,
          title,
          contract,
        }));
        io.out(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      if (flags.markdown) return io.out(catalogueMarkdown(checks));
      if (flags.long)
        return io.out(
          `${longListing(checks, io.isTTY ? TERMINAL_WIDTH : undefined)}${countOf(checks.length, 'check')}\n`,
        );
      for (const c of checks) {
        const tags = c.tags.map((t) => `[${t}]`).join('');
        io.out(
          `${c.id.padEnd(8)} ${c.level.padEnd(7)} ${c.suite.padEnd(12)} ${c.title}${tags ? ` ${tags}` : ''}\n`,
        );
      }
      io.out(`${countOf(checks.length, 'check')}\n`);
    });
}
