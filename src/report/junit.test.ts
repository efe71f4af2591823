import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { JSON_SCHEMA_VERSION } from './json.js';
import { renderJUnit, writeReports } from './junit.js';
import { result, sampleOutcome, TIMELINE } from './sample-outcome.test.helper.js';

/** The XML of one <testcase> element, found by check ID. */
function testcase(xml: string, id: string): string {
  const m = new RegExp(`<testcase[^>]*name="${id} [^"]*"[^>]*?(?:/>|>[\\s\\S]*?</testcase>)`).exec(xml);
  if (!m) throw new Error(`no testcase ${id} in\n${xml}`);
  return m[0];
}

describe('renderJUnit', () => {
  const xml = renderJUnit(sampleOutcome());

  it('writes one testsuite per suite with counts, and no skipped count on the root', () => {
    expect(xml).to.match(/<testsuites name="cri-conform" tests="6" failures="1" errors="1">/);
    expect(xml).to.match(
      /<testsuite name="idempotency" timestamp="2026-01-02T03:04:05.000Z" time="2.468" tests="2" failures="1" errors="0" skipped="0">/,
    );
    expect(xml).to.match(/<testsuite name="names" [^>]*tests="2" failures="0" errors="1" skipped="1">/);
    expect(xml).to.match(/<testsuite name="hooks" [^>]*tests="2" failures="0" errors="0" skipped="1">/);
  });

  it('names test cases after the check and its level, with time in seconds', () => {
    expect(testcase(xml, 'IDEM-01')).to.contain(
      'classname="cri-conform.idempotency.MUST" name="IDEM-01 A retried RunPodSandbox returns the same sandbox [MUST]" time="1.234"',
    );
  });

  it('puts the run properties on every suite', () => {
    for (const suite of ['idempotency', 'names', 'hooks']) {
      const block = new RegExp(`<testsuite name="${suite}"[\\s\\S]*?</properties>`).exec(xml)?.[0] ?? '';
      for (const key of [
        'runId',
        'toolVersion',
        'runtimeName',
        'runtimeVersion',
        'criApiVersion',
        'nriVersion',
        'endpoint',
        'flags',
      ]) {
        expect(block, `${suite} ${key}`).to.match(new RegExp(`<property name="${key}" value="[^"]+"/>`));
      }
    }
  });

  it('reports a failure with its message and the timeline in the body and in system-out', () => {
    const tc = testcase(xml, 'IDEM-02');
    expect(tc).to.contain('<failure message="expected pod-2 to equal pod-1" type="failure">');
    expect(tc).to.contain(
      '#1 +3ms cri RunPodSandbox name=idem-01#0 deadline=2000ms latency=2001ms DEADLINE_EXCEEDED: context deadline exceeded',
    );
    expect(tc).to.contain(
      '#2 +15ms nri 10-cri-conform RunPodSandbox pod=idem-01(0123456789ab) [fault: hang]',
    );
    expect(tc).to.contain('#3 +2100ms note retrying like kubelet');
    expect(tc).to.match(/<system-out>\s*<!\[CDATA\[timeline:\n#1 /);
  });

  it('reports an error with its message and detail', () => {
    const tc = testcase(xml, 'NAME-01');
    expect(tc).to.contain('<error message="ttrpc: bad frame" type="error">');
    expect(tc).to.contain('<![CDATA[Error: bad frame\n    at decode]]>');
  });

  it('gives skipped checks and expected deviations a skipped message', () => {
    expect(testcase(xml, 'NAME-02')).to.contain('<skipped message="needs NRI: pass --nri-socket"/>');
    expect(testcase(xml, 'HOOK-01')).to.contain(
      '<skipped message="expected deviation: stop hook blocks https://github.com/containerd/containerd/issues/1"/>',
    );
  });

  it('passes observed checks and records observations in system-out and in the case properties', () => {
    const tc = testcase(xml, 'HOOK-02');
    expect(tc).not.to.match(/<failure|<error|<skipped/);
    expect(tc).to.contain('reservation.code=UNKNOWN\ntrials=5 violated=0');
    expect(tc).to.contain('<property name="reservation.code" value="UNKNOWN"/>');
    expect(tc).to.contain('<property name="level" value="OBSERVE"/>');
    expect(tc).to.contain('classname="cri-conform.hooks.OBSERVE"');
  });

  it('keeps check observations out of the suite properties, which hold run metadata only', () => {
    const suiteProps =
      /<testsuite name="hooks"[^>]*>\s*<properties>([\s\S]*?)<\/properties>/.exec(xml)?.[1] ?? '';
    expect(suiteProps).to.contain('runtimeName');
    expect(suiteProps).not.to.contain('reservation.code');
  });

  it('writes one error case that says why when the run could not start', () => {
    const outcome = sampleOutcome();
    outcome.results = [];
    outcome.notStarted = 'cannot reach unix:///nope.sock';
    const out = renderJUnit(outcome);
    expect(out).to.match(/<testsuite name="run" [^>]*tests="1" failures="0" errors="1"/);
    expect(out).to.contain('<error message="cannot reach unix:///nope.sock" type="not-started">');
  });

  it("names the pods' cgroup driver, how it was learnt and their parent", () => {
    const outcome = sampleOutcome();
    outcome.properties.cgroup = {
      driver: 'systemd',
      driverSource: 'CRI RuntimeConfig',
      parent: 'cri_conform.slice',
      parentSource: 'default',
    };
    expect(renderJUnit(outcome)).to.contain(
      '<property name="cgroup" value="cgroup driver systemd (CRI RuntimeConfig), parent cri_conform.slice"/>',
    );
  });

  it('marks an interrupted run on the suites', () => {
    const outcome = sampleOutcome();
    outcome.interrupted = 'SIGTERM';
    expect(renderJUnit(outcome)).to.contain('<property name="interrupted" value="SIGTERM"/>');
  });

  it('escapes quotes, markup and ampersands, drops control characters and strips ANSI codes', () => {
    const nasty = 'say "hi" & <b>bye</b> \'q\'\u0000\u0007\u001b[31mred\u001b[0m\ttab]]>x]]>y';
    const outcome = sampleOutcome();
    outcome.results = [
      result({
        id: 'NAST-01',
        verdict: 'failed',
        title: 'a <"title"> & more',
        message: nasty,
        timeline: TIMELINE,
      }),
      result({ id: 'NAST-02', verdict: 'skipped', message: nasty }),
    ];
    const out = renderJUnit(outcome);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting their absence
    expect(out).not.to.match(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    // ">" needs no escape in attribute values; xmlbuilder leaves it, which is valid XML.
    expect(out).to.contain('name="NAST-01 a &lt;&quot;title&quot;> &amp; more [MUST]"');
    const attr = "say &quot;hi&quot; &amp; &lt;b>bye&lt;/b> 'q'red&#x9;tab]]>x]]>y";
    expect(out).to.contain(`<failure message="${attr}" type="failure">`);
    expect(out).to.contain(`<skipped message="${attr}"/>`);
    expect(out).to.contain('<![CDATA[say "hi" & <b>bye</b> \'q\'red\ttab]] >x]] >y\n');
  });
});

describe('writeReports', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the directory and writes <prefix>junit.xml and <prefix>results.json', async () => {
    const target = join(dir, 'a', 'b');
    const files = await writeReports(sampleOutcome(), { dir: target, prefix: 'node1-' });
    expect(files).to.deep.equal([join(target, 'node1-junit.xml'), join(target, 'node1-results.json')]);
    expect(readFileSync(files[0]!, 'utf8')).to.match(/^<\?xml version="1.0" encoding="UTF-8"\?>/);
    expect(JSON.parse(readFileSync(files[1]!, 'utf8')).schemaVersion).to.equal(JSON_SCHEMA_VERSION);
  });

  it('writes to explicit file names, creating their directories', async () => {
    const junitFile = join(dir, 'x', 'j.xml');
    const jsonFile = join(dir, 'y', 'r.json');
    const files = await writeReports(sampleOutcome(), { dir: join(dir, 'reports'), junitFile, jsonFile });
    expect(files).to.deep.equal([junitFile, jsonFile]);
    expect(readFileSync(junitFile, 'utf8')).to.contain('<testsuites');
  });
});
