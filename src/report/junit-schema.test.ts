/**
 * Validates renderJUnit output against junit-jenkins.xsd with xmllint-wasm: libxml2's xmllint built to
 * WebAssembly and installed from npm, so the test runs on every machine with no system package.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { validateXML } from 'xmllint-wasm';
import { renderJUnit } from './junit.js';
import { packageRoot } from './package-root.test.helper.js';
import { result, sampleOutcome, TIMELINE } from './sample-outcome.test.helper.js';

const XSD = readFileSync(`${packageRoot()}/src/report/junit-jenkins.xsd`, 'utf8');

async function validate(xml: string): Promise<{ ok: boolean; output: string }> {
  const r = await validateXML({
    xml: { fileName: 'report.xml', contents: xml },
    schema: { fileName: 'junit-jenkins.xsd', contents: XSD },
  });
  return { ok: r.valid, output: r.rawOutput };
}

describe('JUnit XML against the Jenkins JUnit schema', () => {
  it('accepts a report with every verdict', async () => {
    const r = await validate(renderJUnit(sampleOutcome()));
    expect(r.ok, r.output).to.equal(true);
  });

  it('accepts a report with a runtime crash (a failed case of its own)', async () => {
    const outcome = sampleOutcome();
    outcome.runtimeCrashes = [
      {
        check: 'IDEM-05',
        beside: ['TEAR-02'],
        evidence: 'the runtime stopped answering (Version got no reply)',
      },
    ];
    const r = await validate(renderJUnit(outcome));
    expect(r.ok, r.output).to.equal(true);
  });

  it('accepts a report with nasty characters in titles, messages and timelines', async () => {
    const nasty = '"q" & <x> ]]> \u0001\u001b[1mbold\u001b[0m \ud800 end';
    const outcome = sampleOutcome();
    outcome.interrupted = `signal ${nasty}`;
    outcome.results = [
      result({ id: 'NAST-01', title: nasty, verdict: 'failed', message: nasty, timeline: TIMELINE }),
      result({ id: 'NAST-02', verdict: 'error', message: nasty, detail: nasty }),
      result({ id: 'NAST-03', verdict: 'skipped', message: nasty }),
      result({ id: 'NAST-04', verdict: 'observed', observations: { [`k${nasty}`]: nasty } }),
    ];
    const r = await validate(renderJUnit(outcome));
    expect(r.ok, r.output).to.equal(true);
  });

  it('accepts a run that produced no results', async () => {
    const outcome = sampleOutcome();
    outcome.results = [];
    const r = await validate(renderJUnit(outcome));
    expect(r.ok, r.output).to.equal(true);
  });

  it('rejects what the schema forbids: a testcase without classname, a skipped count on the root', async () => {
    const noClassname =
      '<testsuites><testsuite name="s" tests="1" failures="0" errors="0"><testcase name="t"/></testsuite></testsuites>';
    expect((await validate(noClassname)).ok).to.equal(false);
    const rootSkipped =
      '<testsuites skipped="1"><testsuite name="s" tests="0" failures="0" errors="0"/></testsuites>';
    expect((await validate(rootSkipped)).ok).to.equal(false);
    const badTime =
      '<testsuite name="s" tests="1" failures="0" errors="0"><testcase name="t" classname="c" time="1e-3"/></testsuite>';
    expect((await validate(badTime)).ok).to.equal(false);
  });

  it('accepts the report of a run that could not start', async () => {
    const outcome = sampleOutcome();
    outcome.results = [];
    outcome.notStarted = 'cannot reach the runtime';
    const r = await validate(renderJUnit(outcome));
    expect(r.ok, r.output).to.equal(true);
  });
});
