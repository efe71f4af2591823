/**
 * Where `report` cannot write its HTML: one line naming the path and what to do, exit 2, and never a hang
 * (a recursive mkdir under /proc spins for good) or a stack trace.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { renderJson } from '../report/json.js';
import { sampleOutcome } from '../report/sample-outcome.test.helper.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

const argv = (...args: string[]) => ['node', 'cri-conform', ...args];

describe('report --html to a path it cannot write', function () {
  this.timeout(10_000);
  let dir: string;
  let one: string;
  let two: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-'));
    one = join(dir, 'one.json');
    two = join(dir, 'two.json');
    writeFileSync(one, renderJson(sampleOutcome()));
    writeFileSync(two, renderJson(sampleOutcome()));
    mkdirSync(join(dir, 'a-dir'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function expectOneLine(args: string[], path: string, why: RegExp): Promise<void> {
    const io = recordingIo();
    expect(await main(argv(...args), io), io.stderr()).to.equal(2);
    const lines = io.stderr().trim().split('\n');
    expect(lines, io.stderr()).to.have.length(1);
    expect(lines[0])
      .to.contain(`cannot write ${path}`)
      .and.to.match(why)
      .and.to.contain('pass a writable path');
    expect(io.stderr()).not.to.contain('internal error');
  }

  it('says a folder under /proc cannot be made, instead of spinning for good', async () => {
    const html = '/proc/cc-no-such-dir/r.html';
    await expectOneLine(
      ['report', one, '--html', html],
      html,
      /cannot make the folder \/proc\/cc-no-such-dir/,
    );
  });

  it('names the file that stands where a folder is needed', async () => {
    const html = join(one, 'sub', 'r.html');
    await expectOneLine(['report', one, '--html', html], html, new RegExp(`${one} is a file, not a folder`));
  });

  it('says when the file named is a folder, for the single-run report and the matrix', async () => {
    const html = join(dir, 'a-dir');
    await expectOneLine(['report', one, '--html', html], html, /it is a folder: name a file/);
    await expectOneLine(['report', one, two, '--html', html], html, /it is a folder: name a file/);
  });
});
