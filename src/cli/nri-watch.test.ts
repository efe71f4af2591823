/** `nri watch` with bad input: a bad flag is named as such. Nothing here needs a runtime. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';
import { expectUsageFailure } from './usage-failure.test.helper.js';

describe('nri watch with bad input', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const watch = (...args: string[]) => ['nri', 'watch', '--nri-socket', join(dir, 'absent.sock'), ...args];

  for (const name of ['', 'a/b c']) {
    it(`rejects --name ${JSON.stringify(name)} as a bad flag, not as NRI being off`, async () => {
      const line = await expectUsageFailure(watch('--name', name), /^cri-conform: --name ".*" must match/);
      expect(line)
        .to.contain(`--name ${JSON.stringify(name)}`)
        .and.not.to.contain('Is NRI enabled');
    });
  }

  it('prints the default of --index once in its help', async () => {
    const io = recordingIo();
    expect(await main(['node', 'cri-conform', 'nri', 'watch', '--help'], io)).to.equal(0);
    // Commander wraps a long help text onto the next lines: take the option up to the next one.
    const indexHelp = /--index[\s\S]*?(?=\n {2}-)/.exec(io.stdout())?.[0] ?? '';
    expect(indexHelp.match(/default/g), indexHelp).to.have.length(1);
  });
});
