/**
 * A run whose reports cannot be written says so in one line before it starts (exit 2), so an hour of
 * checks is never lost to a typo in --report-dir, and an earlier error is never hidden by that line.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

const argv = (...args: string[]) => ['node', 'cri-conform', ...args];

describe('run with report paths it cannot write', function () {
  this.timeout(10_000);
  let dir: string;
  let aFile: string;
  let endpoint: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-'));
    aFile = join(dir, 'a-file');
    writeFileSync(aFile, '');
    mkdirSync(join(dir, 'a-dir'));
    // Nothing listens here: a run that got past its report paths would stop at the connection.
    endpoint = `unix://${join(dir, 'nobody-listens.sock')}`;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function run(...args: string[]) {
    const io = recordingIo({ NO_COLOR: '1' });
    const code = await main(argv('run', '-r', endpoint, '--config', '/dev/null', ...args), io);
    const lines = io.stderr().trim().split('\n');
    expect(io.stderr()).not.to.contain('internal error');
    return { code, lines, stderr: io.stderr() };
  }

  const cases = [
    { flag: '--report-dir', value: () => '/proc/cc-no-such-dir', why: /cannot make the folder/ },
    { flag: '--report-dir', value: () => join(aFile, 'sub'), why: /is a file, not a folder/ },
    { flag: '--junit', value: () => join(aFile, 'j.xml'), why: /is a file, not a folder/ },
    { flag: '--junit', value: () => join(dir, 'a-dir'), why: /it is a folder: name a file/ },
    { flag: '--json', value: () => join(dir, 'a-dir'), why: /it is a folder: name a file/ },
    { flag: '--html', value: () => '/proc/cc-no-such-dir/r.html', why: /cannot make the folder/ },
  ];
  for (const c of cases) {
    it(`stops before connecting, in one line naming ${c.flag} and the path (${c.why.source})`, async () => {
      const value = c.value();
      const { code, lines, stderr } = await run(c.flag, value);
      expect(code, stderr).to.equal(2);
      expect(lines, stderr).to.have.length(1);
      expect(lines[0]).to.contain(`cri-conform: ${c.flag}: cannot write ${value}`).and.to.match(c.why);
      expect(lines[0]).to.contain('pass a writable path');
    });
  }

  it('keeps the usage error of a selection that selects nothing when the report dir is fine', async () => {
    const { code, lines, stderr } = await run('--focus', 'ZZZZ', '--report-dir', join(dir, 'reports'));
    expect(code, stderr).to.equal(2);
    expect(lines, stderr).to.deep.equal([
      'cri-conform: the selection (--suite/--level/--focus/--skip) selects no check; see `cri-conform list`',
    ]);
    expect(stderr).not.to.contain('cannot write');
  });

  it('says what is wrong with the report dir rather than a stack when the selection is empty too', async () => {
    const { code, lines, stderr } = await run('--focus', 'ZZZZ', '--report-dir', join(aFile, 'x'));
    expect(code, stderr).to.equal(2);
    expect(lines, stderr).to.have.length(1);
    expect(lines[0]).to.contain(`--report-dir: cannot write ${join(aFile, 'x')}`);
  });

  it('rejects a --report-prefix with a "/", which would write outside --report-dir', async () => {
    const reports = join(dir, 'a', 'b');
    const { code, lines, stderr } = await run('--report-dir', reports, '--report-prefix', '../../escape-');
    expect(code, stderr).to.equal(2);
    expect(lines, stderr).to.have.length(1);
    expect(lines[0]).to.contain('--report-prefix ../../escape-').and.to.contain('/');
    expect(readdirSync(dir).filter((f) => f.startsWith('escape-'))).to.deep.equal([]);
    expect(existsSync(join(dir, 'escape-junit.xml'))).to.equal(false);
  });
});
