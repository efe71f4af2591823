/** The house rule for bad input, as one assertion: exactly one line on stderr, no stack trace, exit code 2. */
import { expect } from 'chai';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

/** Runs `cri-conform <args>` in process and returns its one stderr line, after asserting the rule. */
export async function expectUsageFailure(args: readonly string[], pattern: RegExp): Promise<string> {
  const io = recordingIo({ NO_COLOR: '1' });
  const code = await main(['node', 'cri-conform', ...args], io);
  expect(code, io.stderr()).to.equal(2);
  const lines = io.stderr().trim().split('\n');
  expect(lines, io.stderr()).to.have.length(1);
  expect(io.stderr()).to.not.match(/\n\s+at /);
  const [line = ''] = lines;
  expect(line).to.match(pattern);
  return line;
}
