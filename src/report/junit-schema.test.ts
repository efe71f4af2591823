/**
 * Validates renderJUnit output against junit-jenkins.xsd with xmllint (Debian libxml2-utils). Without
 * xmllint the tests skip, except in CI (CI=true), where a missing validator must not pass silently.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { skipBecause } from '../skip-reason.test.helper.js';
import { renderJUnit } from './junit.js';
import { result, sampleOutcome, TIMELINE } from './sample-outcome.test.helper.js';

/** The XSD lives in the source tree; walk up from dist/src/report to the package root to find it. */
function xsdPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('no package.json above the test');
    dir = parent;
  }
  return join(dir, 'src', 'report', 'junit-jenkins.xsd');
}

function hasXmllint(): boolean {
  return spawnSync('xmllint', ['--version']).status === 0;
}

describe('JUnit XML against the Jenkins JUnit schema', () => {
  let dir: string;

  before(function () {
    if (!hasXmllint()) {
      const why = 'xmllint is missing: apt-get install libxml2-utils';
      if (process.env.CI === 'true') throw new Error(why);
      skipBecause(this, why);
    }
    dir = mkdtempSync(join(tmpdir(), 'cc-'));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function validate(xml: string): { ok: boolean; output: string } {
    const file = join(dir, 'report.xml');
    writeFileSync(file, xml);
    const r = spawnSync('xmllint', ['--noout', '--schema', xsdPath(), file], { encoding: 'utf8' });
    return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
  }

  it('accepts a report with every verdict', () => {
    const r = validate(renderJUnit(sampleOutcome()));
    expect(r.ok, r.output).to.equal(true);
  });

  it('accepts a report with nasty characters in titles, messages and timelines', () => {
    const nasty = '"q" & <x> ]]> \u0001\u001b[1mbold\u001b[0m \ud800 end';
    const outcome = sampleOutcome();
    outcome.interrupted = `signal ${nasty}`;
    outcome.results = [
      result({ id: 'NAST-01', title: nasty, verdict: 'failed', message: nasty, timeline: TIMELINE }),
      result({ id: 'NAST-02', verdict: 'error', message: nasty, detail: nasty }),
      result({ id: 'NAST-03', verdict: 'skipped', message: nasty }),
      result({ id: 'NAST-04', verdict: 'observed', observations: { [`k${nasty}`]: nasty } }),
    ];
    const r = validate(renderJUnit(outcome));
    expect(r.ok, r.output).to.equal(true);
  });

  it('accepts a run that produced no results', () => {
    const outcome = sampleOutcome();
    outcome.results = [];
    const r = validate(renderJUnit(outcome));
    expect(r.ok, r.output).to.equal(true);
  });

  it('rejects what the schema forbids: a testcase without classname, a skipped count on the root', () => {
    const noClassname =
      '<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="t"/></testsuite></testsuites>';
    expect(validate(noClassname).ok).to.equal(false);
    const rootSkipped =
      '<testsuites skipped="1"><testsuite name="s" tests="0" failures="0" errors="0"/></testsuites>';
    expect(validate(rootSkipped).ok).to.equal(false);
    const badTime =
      '<testsuite name="s" tests="1" failures="0" errors="0"><testcase name="t" classname="c" time="1e-3"/></testsuite>';
    expect(validate(badTime).ok).to.equal(false);
  });
});
