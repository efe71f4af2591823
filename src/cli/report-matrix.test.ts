import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { packageRoot } from '../report/package-root.test.helper.js';
import { RECORDED, recordedRun } from '../report/recorded-runs.test.helper.js';
import { sonobuoyTarball } from '../report/sonobuoy-tarball.test.helper.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

const argv = (...args: string[]) => ['node', 'cri-conform', ...args];

describe('cri-conform report: the matrix and the bug report', () => {
  let dir: string;
  let tarball: string;
  const c17 = join(packageRoot(), RECORDED.containerd17);
  const c21 = join(packageRoot(), RECORDED.containerd21);
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-'));
    tarball = join(dir, '202611260600_sonobuoy_dfe30ebc.tar.gz');
    writeFileSync(
      tarball,
      sonobuoyTarball([
        { node: 'worker-a', outcome: recordedRun(RECORDED.containerd21) },
        { node: 'worker-b', outcome: recordedRun(RECORDED.containerd21), nested: true },
        { node: 'worker-c', outcome: recordedRun(RECORDED.containerd17) },
      ]),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the matrix of several results.json files as text, with the differing checks named', async () => {
    const io = recordingIo();
    expect(await main(argv('report', c17, c21), io)).to.equal(0);
    expect(io.stdout()).to.match(/^TEAR-16 +MUST +pass +FAIL +<>$/m);
    expect(io.stdout()).to.match(/^<> differs across columns \(\d+\): .*TEAR-16/m);
  });

  it('turns a Sonobuoy results tarball into a matrix whose columns are its nodes', async () => {
    const html = join(dir, 'fleet.html');
    const io = recordingIo();
    expect(await main(argv('report', tarball, '--html', html), io)).to.equal(0);
    expect(io.stdout()).to.contain('A: containerd 2.1.9+unknown, NRI v0.8.0, 2 nodes: worker-a, worker-b');
    expect(io.stdout()).to.contain('B: containerd 1.7.24~ds1, NRI v0.6.1, node worker-c');
    expect(io.stderr()).to.contain('node node-gone has no cri-conform results');
    const page = readFileSync(html, 'utf8');
    expect(page)
      .to.contain('<span class="sub">2 nodes</span>')
      .and.to.contain('<span class="sub">worker-c</span>');
    expect(page).to.contain('id="A-TEAR-16"');
  });

  it('prints the Markdown bug report of one failed check', async () => {
    const io = recordingIo();
    expect(await main(argv('report', c21, '--issue', 'tear-16'), io)).to.equal(0);
    expect(io.stdout()).to.match(/^# containerd 2\.1\.9\+unknown breaks "A plugin that registers/);
    expect(io.stdout()).to.contain("cri-conform run --focus '^TEAR-16\\b'");
  });

  it('rejects bad input with one line and exit 2', async () => {
    const notTar = join(dir, 'junk.tar.gz');
    writeFileSync(notTar, Buffer.from([0x1f, 0x8b, 1, 2, 3]));
    for (const [args, says] of [
      [[c17, c21, '--issue', 'TEAR-16'], '--issue reports a failure of one run; 2 runs were given'],
      [[c21, '--issue', 'IDEM-01'], '--issue IDEM-01: IDEM-01 passed in this run'],
      [[notTar], 'not a readable gzip stream'],
      [[c17, c21, '--baseline', c17], '--baseline compares two runs'],
      [[join(dir, 'missing.json')], 'cannot read'],
    ] as const) {
      const io = recordingIo();
      expect(await main(argv('report', ...args), io), says).to.equal(2);
      expect(io.stderr().trim().split('\n'), says).to.have.length(1);
      expect(io.stderr()).to.contain(says);
    }
  });
});
