import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

describe('--isolated when there is no runtime to copy', () => {
  const reports = mkdtempSync(join(tmpdir(), 'cc-'));
  after(() => rmSync(reports, { recursive: true, force: true }));

  for (const [what, args, pattern] of [
    [
      'a remote endpoint',
      ['run', '-r', 'tcp://127.0.0.1:1'],
      /^cri-conform: --isolated: (?!.*--isolated).*unix socket.*tcp:\/\/127\.0\.0\.1:1/,
    ],
    [
      'a socket nobody listens on',
      ['doctor', '-r', 'unix:///nonexistent/cc.sock'],
      /^cri-conform: --isolated: no process listens on \/nonexistent\/cc\.sock/,
    ],
  ] as const) {
    it(`stops with one line and exit 2 for ${what}`, async () => {
      const io = recordingIo({ NO_COLOR: '1' });
      const code = await main(['node', 'cri-conform', ...args, '--isolated', '--report-dir', reports], io);
      expect(code, io.stderr()).to.equal(2);
      const lines = io.stderr().trim().split('\n');
      expect(lines, io.stderr()).to.have.length(1);
      expect(lines[0]).to.match(pattern);
    });
  }
});
