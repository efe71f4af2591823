/**
 * The catalogue as text, rendered from the checks' own definitions: the long listing of `list --long` and
 * the Markdown of `list --markdown`, which is committed as docs/checks.md (a test keeps that file current).
 */
import type { Check } from '../harness/check/check.js';
import { sharingGroup } from '../harness/check/sharing.js';
import { SUITES } from '../harness/core/vocabulary.js';
import { wrapText } from '../report/text.js';

/** The command that regenerates docs/checks.md; quoted in the file and in the test that guards it. */
export const REGENERATE_CATALOGUE = 'node bin/cri-conform list --markdown > docs/checks.md';

const SUITE_TOPICS: Record<Check['suite'], string> = {
  idempotency: 'timeout and retry',
  names: '"name is reserved"',
  hooks: 'NRI pod-sandbox hook ordering',
  teardown: 'teardown no plugin can block',
};

function traits(c: Check): string[] {
  return [
    ...c.tags.map((t) => `[${t}]`),
    ...(c.trials ? ['trials'] : []),
    ...(c.needs.includes('nri') ? ['needs NRI'] : []),
    ...(sharingGroup(c) === 'alone' ? ['runs alone'] : []),
    ...(sharingGroup(c) === 'hook-lane' ? ['holds hooks in turn'] : []),
  ];
}

/**
 * One block per check: the identity line, the title (the assertion), and the contract it cites. With a
 * width (a terminal), the title and the contract wrap at it, continuation lines indented under their text.
 */
export function longListing(checks: readonly Check[], width?: number): string {
  const field = (indent: string, text: string, hang: string) =>
    width ? wrapText(text, width, indent, hang) : [`${indent}${text}`];
  return checks
    .map((c) => {
      const extra = traits(c);
      return [
        `${c.id}  ${c.level}  ${c.suite}${extra.length > 0 ? `  ${extra.join(', ')}` : ''}`,
        ...field('  ', c.title, '  '),
        ...field('  contract: ', c.contract, '            '),
        '',
      ].join('\n');
    })
    .join('\n');
}

const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function catalogueMarkdown(checks: readonly Check[]): string {
  const count = (level: Check['level']) => checks.filter((c) => c.level === level).length;
  const lines = [
    `<!-- Generated from the checks' definitions by \`cri-conform list --markdown\`; do not edit by hand.`,
    `     Regenerate: ${REGENERATE_CATALOGUE} -->`,
    '# cri-conform checks',
    '',
    `${checks.length} checks: ${count('MUST')} MUST, ${count('SHOULD')} SHOULD, ${count('OBSERVE')} OBSERVE.`,
    '`cri-conform run` runs the MUST checks; `--level should` adds SHOULD, `--level all` adds OBSERVE.',
    'The title of each check is its assertion; the contract column cites where the rule comes from.',
    '[Slow] checks run with `--slow`, [Restart] checks with `--restart-cmd`, and [Node] checks need node',
    'probes (root on a local socket). "trials" checks repeat their race `--trials` times, up to',
    '`--parallel-trials` at once; checks that "hold hooks in turn" run beside each other, their held NRI',
    'hooks taking turns.',
  ];
  for (const suite of SUITES) {
    const inSuite = checks.filter((c) => c.suite === suite);
    if (inSuite.length === 0) continue;
    lines.push(
      '',
      `## ${suite}: ${SUITE_TOPICS[suite]}`,
      '',
      '| ID | level | assertion | contract |',
      '|---|---|---|---|',
    );
    for (const c of inSuite) {
      const extra = traits(c);
      const title = extra.length > 0 ? `${c.title} (${extra.join(', ')})` : c.title;
      lines.push(`| ${c.id} | ${c.level} | ${cell(title)} | ${cell(c.contract)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
