import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { renderJson } from '../report/json.js';
import { sampleOutcome } from '../report/sample-outcome.test.helper.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

const argv = (...args: string[]) => ['node', 'cri-conform', ...args];

describe('cri-conform report and diff', () => {
  let dir: string;
  let oldFile: string;
  let newFile: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-'));
    const old = sampleOutcome();
    old.results = old.results.map((r) => (r.id === 'IDEM-02' ? { ...r, verdict: 'passed' } : r));
    oldFile = join(dir, 'old.json');
    newFile = join(dir, 'new.json');
    writeFileSync(oldFile, renderJson(old));
    writeFileSync(newFile, renderJson(sampleOutcome()));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('diff exits 1 on a regression and prints it', async () => {
    const io = recordingIo();
    expect(await main(argv('diff', oldFile, newFile), io)).to.equal(1);
    expect(io.stdout()).to.match(/✘ regression\s+IDEM-02\s+passed\s+failed/);
  });

  it('diff exits 0 when nothing got worse (the fix direction)', async () => {
    const io = recordingIo();
    expect(await main(argv('diff', newFile, oldFile), io)).to.equal(0);
    expect(io.stdout()).to.contain('✔ fix').and.to.contain('no regressions');
  });

  it('diff and report reject a file that is not a results file with one line and exit 2', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"hello": 1}');
    for (const args of [
      ['diff', bad, newFile],
      ['report', bad, '--html', join(dir, 'x.html')],
    ]) {
      const io = recordingIo();
      expect(await main(argv(...args), io)).to.equal(2);
      expect(io.stderr().trim().split('\n')).to.have.length(1);
      expect(io.stderr()).to.contain('is not a cri-conform results file');
    }
  });

  it('report renders an earlier run as HTML, with the diff when given a baseline', async () => {
    const html = join(dir, 'out', 'report.html');
    const io = recordingIo();
    expect(await main(argv('report', newFile, '--html', html, '--baseline', oldFile), io)).to.equal(0);
    const text = readFileSync(html, 'utf8');
    expect(text)
      .to.contain('<details class="check"')
      .and.to.contain('Compared with the baseline: 1 regression(s)');
  });

  it('says that --baseline with one run needs --html, or points to diff for the comparison as text', async () => {
    const io = recordingIo();
    expect(await main(argv('report', newFile, '--baseline', oldFile), io)).to.equal(2);
    expect(io.stderr().trim()).to.equal(
      `cri-conform: --baseline adds a comparison to the HTML report of one run: add --html <file>, or run \`cri-conform diff ${oldFile} ${newFile}\` for the comparison as text`,
    );
  });
});
