/**
 * A Sonobuoy worker whose results dir cannot be written cannot hand Sonobuoy anything: it says so in one
 * line and exits 2 at once, instead of spinning (a results dir under /proc) or printing a stack.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { main } from '../main.js';
import { recordingIo } from '../test-io.test.helper.js';
import { closedPort } from './progress-server.test.helper.js';

describe('run --sonobuoy with a results dir it cannot write', function () {
  this.timeout(20_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-'));
    writeFileSync(join(dir, 'a-file'), '');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const results of ['/proc/cc-no-such-dir/results', 'a-file/results']) {
    it(`exits 2 with one line naming SONOBUOY_RESULTS_DIR ${results}`, async () => {
      const resultsDir = results.startsWith('/') ? results : join(dir, results);
      // A host without runtime sockets: the worker fails setup at once and goes on to write its JUnit.
      const io = recordingIo({
        SONOBUOY_RESULTS_DIR: resultsDir,
        SONOBUOY_PROGRESS_PORT: String(await closedPort()),
        NODE_NAME: 'node-1',
        CRI_CONFORM_HOST_ROOT: dir,
      });
      expect(await main(['node', 'cri-conform', 'run', '--sonobuoy'], io)).to.equal(2);
      const last = io.stderr().trim().split('\n').at(-1) ?? '';
      expect(last).to.match(/^cri-conform: SONOBUOY_RESULTS_DIR: cannot write /);
      expect(last).to.contain(resultsDir).and.to.contain('pass a writable path');
      expect(io.stderr()).not.to.contain('internal error');
    });
  }
});
