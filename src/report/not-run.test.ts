import { expect } from 'chai';
import { createConsoleReporter } from './console.js';
import { renderHtml } from './html/render-html.js';
import { renderJson } from './json.js';
import { renderJUnit } from './junit.js';
import { parseResults } from './read-results.js';
import { result, sampleOutcome } from './sample-outcome.test.helper.js';

const WHY =
  "whether the workload's processes end was not looked at: [Node] host probes are off (--node-probes off)";

/** The sample run with TEAR-09 passed on its CRI part alone. */
function outcomeWithHostPartNotRun() {
  const outcome = sampleOutcome();
  const tear09 = result({
    id: 'TEAR-09',
    suite: 'teardown',
    verdict: 'passed',
    title: 'RemovePodSandbox on a sandbox with running containers forcibly stops them',
    observations: { 'host part': `not run: ${WHY}` },
    notRun: [{ part: 'host part', why: WHY }],
  });
  return { ...outcome, results: [...outcome.results, tear09] };
}

describe('a PASS whose host part did not run', () => {
  it('says so in its console verdict line, and why right under it', () => {
    let out = '';
    const reporter = createConsoleReporter({ write: (s) => (out += s), isTTY: false }, { color: false });
    const outcome = outcomeWithHostPartNotRun();
    reporter.onStart(outcome.results.length, outcome.properties);
    for (const r of outcome.results) reporter.onCheckEnd(r);
    reporter.onEnd(outcome);
    const lines = out.split('\n');
    const at = lines.findIndex((l) => l.includes('TEAR-09'));
    expect(lines[at]).to.match(/^✔ PASS +TEAR-09 \(host part not run\) RemovePodSandbox on a sandbox/);
    expect(lines[at + 1]).to.equal(`    host part not run: ${WHY}`);
    const idem01 = lines.find((l) => l.includes('IDEM-01')) ?? '';
    expect(idem01, 'a full PASS carries no mark').not.to.contain('not run');
  });

  it('says so in JUnit: first in its system-out, and as a property', () => {
    const xml = renderJUnit(outcomeWithHostPartNotRun());
    const tc = /<testcase[^>]*name="TEAR-09 [\s\S]*?<\/testcase>/.exec(xml)?.[0] ?? '';
    expect(tc).to.contain(`<property name="notRun" value="host part not run: ${WHY}"/>`);
    expect(tc).to.match(/<system-out><!\[CDATA\[PASS \(host part not run: whether the workload's processes/);
  });

  it('says so in the HTML verdict and body', () => {
    const html = renderHtml(outcomeWithHostPartNotRun());
    expect(html).to.contain('<span class="v-passed">passed (host part not run)</span>');
    expect(html).to.contain('<b>Not tested here:</b> host part not run: whether the workload&#39;s');
  });

  it('keeps the parts not run through results.json, and null where every part ran', () => {
    const json = JSON.parse(renderJson(outcomeWithHostPartNotRun()));
    const byId = new Map(json.results.map((r: { id: string }) => [r.id, r]));
    expect(byId.get('TEAR-09')).to.deep.include({ notRun: [{ part: 'host part', why: WHY }] });
    expect(byId.get('IDEM-01')).to.deep.include({ notRun: null });
    const read = parseResults(json, 'results.json').results.find((r) => r.id === 'TEAR-09');
    expect(read?.notRun).to.deep.equal([{ part: 'host part', why: WHY }]);
  });
});
