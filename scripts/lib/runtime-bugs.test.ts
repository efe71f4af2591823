import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { CheckResult, RunOutcome } from '../../src/harness/check/result.js';
import { parseDeviations } from '../../src/harness/deviations/deviation-file.js';
import { findPackageRoot } from '../../src/nri/package-root.js';
import { PAGE, runtimeBugsPage } from '../runtime-bugs.js';
import { renderRuntimeBugs } from './runtime-bugs.js';

function run(
  runtimeName: string,
  runtimeVersion: string,
  results: Partial<CheckResult>[],
  startedAt = '2026-11-27T12:00:00Z',
): RunOutcome {
  return {
    properties: {
      runtimeName,
      runtimeVersion,
      nriVersion: 'v0.12.0',
      toolVersion: '0.1.0',
      startedAt,
      flags: '--level=all --report-dir=/tmp/x --slow',
    },
    results: results.map((r) => ({ title: `${r.id} title`, observations: {}, timeline: [], ...r })),
  } as unknown as RunOutcome;
}

const ENTRIES = parseDeviations(
  `
- id: TEAR-05
  runtime: cri-o
  versions: ">=1.26.0"
  message: plugin 20 got
  reason: the relay stops
  link: https://github.com/containerd/nri/pull/286
- id: IDEM-10
  runtime: cri-o
  versions: ">=1.20.0"
  message: answered with
  reason: keyed by name
  draft: docs/upstream/cri-o-IDEM-10.md
`,
  'devs.yaml',
);

describe('docs/runtime-bugs.md', () => {
  it('is what the recorded runs in fixtures/results give: regenerate it with node dist/scripts/runtime-bugs.js', () => {
    const root = findPackageRoot();
    expect(readFileSync(join(root, PAGE), 'utf8')).to.equal(runtimeBugsPage(root));
  });

  it('has a row per check that failed somewhere and a column per runtime version, oldest first', () => {
    const page = renderRuntimeBugs(
      [
        run('cri-o', '1.36.3', [
          { id: 'TEAR-05', verdict: 'failed', message: 'plugin 20 got []' },
          { id: 'IDEM-10', verdict: 'failed', message: 'answered with 1a' },
          { id: 'HOOK-01', verdict: 'passed' },
        ]),
        run('cri-o', '1.33.13', [
          { id: 'TEAR-05', verdict: 'failed', message: 'plugin 20 got []' },
          { id: 'IDEM-10', verdict: 'skipped' },
          { id: 'HOOK-01', verdict: 'failed', message: 'a new bug' },
        ]),
        run('containerd', 'v2.3.4', [{ id: 'TEAR-05', verdict: 'error', message: 'x' }]),
      ],
      ENTRIES,
      'test runs',
    );
    expect(page).to.contain('| check | containerd 2.3.4 | CRI-O 1.33.13 | CRI-O 1.36.3 |');
    expect(page).to.contain('| [HOOK-01](checks.md) | · | ✘ no known issue | ✔ |');
    expect(page).to.contain('| [IDEM-10](checks.md) | · | – | ✘ [draft](upstream/cri-o-IDEM-10.md) |');
    expect(page).to.contain(
      '| [TEAR-05](checks.md) | ! | ✘ [nri#286](https://github.com/containerd/nri/pull/286) | ✘ [nri#286](https://github.com/containerd/nri/pull/286) |',
    );
    expect(page).to.contain('`--level=all --slow`');
    expect(page).not.to.contain('/tmp/x');
  });

  it('takes the newest recorded run of a version: an older one says what the checks said then', () => {
    const older = run('cri-o', '1.36.3', [{ id: 'HOOK-01', verdict: 'failed', message: 'old wording' }]);
    const newer = run('cri-o', '1.36.3', [{ id: 'HOOK-01', verdict: 'passed' }], '2026-11-28T12:00:00Z');
    const page = renderRuntimeBugs([newer, older], ENTRIES, 'test runs');
    expect(page).not.to.contain('HOOK-01](checks.md)');
    expect(page).to.contain('2026-11-28');
    expect(page).not.to.contain('2026-11-27');
  });
});
