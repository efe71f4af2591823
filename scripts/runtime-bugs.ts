/**
 * Writes docs/runtime-bugs.md from the recorded runs in fixtures/results/*.json and the bundled
 * deviations; with --check it writes nothing and exits 1 when the committed page differs (CI runs that,
 * and scripts/lib/runtime-bugs.test.ts asserts the same).
 *   node dist/scripts/runtime-bugs.js [--check]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadBundledDeviations } from '../src/harness/deviations/deviation-file.js';
import { parseResults } from '../src/report/read-results.js';
import { renderRuntimeBugs } from './lib/runtime-bugs.js';

export const RESULTS_DIR = join('fixtures', 'results');
export const PAGE = join('docs', 'runtime-bugs.md');

/** The page as the recorded runs in `root` give it. */
export function runtimeBugsPage(root: string): string {
  const files = readdirSync(join(root, RESULTS_DIR))
    .filter((f) => f.endsWith('.json'))
    .sort();
  const runs = files.map((f) => {
    const path = join(RESULTS_DIR, f);
    return parseResults(JSON.parse(readFileSync(join(root, path), 'utf8')), path);
  });
  return renderRuntimeBugs(runs, loadBundledDeviations(root), `${RESULTS_DIR}/*.json`);
}

const invoked = process.argv[1] && resolve(process.argv[1]).endsWith(join('scripts', 'runtime-bugs.js'));
if (invoked) {
  const root = resolve(import.meta.dirname, '../..');
  const page = runtimeBugsPage(root);
  const path = join(root, PAGE);
  if (process.argv.includes('--check')) {
    const committed = readFileSync(path, { encoding: 'utf8', flag: 'a+' });
    if (committed !== page) {
      process.stderr.write(
        `${PAGE} is stale: regenerate it with \`node dist/scripts/runtime-bugs.js\` and commit it\n`,
      );
      process.exitCode = 1;
    }
  } else writeFileSync(path, page);
}
