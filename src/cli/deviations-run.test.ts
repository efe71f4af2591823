/**
 * Expected deviations through a whole run, in process, against the reference runtime: a listed check that
 * passes is a stale entry (a warning, a JUnit property, exit 1 under --strict-deviations), and a listed
 * failure turns into a deviation only when its message matches.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type ReferenceRuntime, startReferenceRuntime } from '../../fixtures/reference/start.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

function entry(message: string): string {
  return [
    '- id: NAME-03',
    '  runtime: cri-conform-reference',
    '  versions: ">=0.1.0 <0.2.0"',
    `  message: ${JSON.stringify(message)}`,
    '  reason: the reference runtime keeps a removed name',
    '  link: https://example.com/issues/1',
    '',
  ].join('\n');
}

describe('a run with expected deviations', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-dev-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function run(runtime: ReferenceRuntime, message: string, ...extra: string[]) {
    const file = join(dir, 'devs.yaml');
    writeFileSync(file, entry(message));
    const io = recordingIo(runtime.env);
    const args = ['run', '--focus', '^NAME-03 ', '--config', '/dev/null', '--report-dir', dir];
    const code = await main(['node', 'cri-conform', ...args, '--expected-deviations', file, ...extra], io);
    return { code, out: io.stdout(), err: io.stderr(), junit: readFileSync(join(dir, 'junit.xml'), 'utf8') };
  }

  describe('on a runtime that keeps the contract', () => {
    let runtime: ReferenceRuntime;
    before(async () => {
      runtime = await startReferenceRuntime();
    });
    after(() => runtime.close());

    it('warns about the stale entry and records it in the JUnit, exiting 0', async () => {
      const r = await run(runtime, 'reserved');
      expect(r.code, r.out + r.err).to.equal(0);
      expect(r.err).to.match(/warning: stale expected deviation NAME-03 .*the check passed/);
      expect(r.junit).to.match(/<property name="staleDeviations" value="NAME-03 \(cri-conform-reference/);
    });

    it('exits 1 on the stale entry under --strict-deviations', async () => {
      const r = await run(runtime, 'reserved', '--strict-deviations');
      expect(r.code, r.out + r.err).to.equal(1);
    });
  });

  describe('on a runtime that keeps removed names', () => {
    let runtime: ReferenceRuntime;
    before(async () => {
      runtime = await startReferenceRuntime({ mutations: ['remove-keeps-name'] });
    });
    after(() => runtime.close());

    it('reports a failure that matches the entry as an expected deviation and exits 0', async () => {
      const r = await run(runtime, '.', '--strict-deviations');
      expect(r.code, r.out + r.err).to.equal(0);
      expect(r.out).to.match(/DEVIATION +NAME-03/);
      expect(r.err).to.not.match(/stale/);
    });

    it('keeps a failure whose message the entry does not match a FAIL, and calls the entry stale', async () => {
      const r = await run(runtime, 'no failure says this');
      expect(r.code, r.out + r.err).to.equal(1);
      expect(r.out).to.match(/FAIL +NAME-03/);
      expect(r.err).to.match(/stale expected deviation NAME-03 .*does not match/);
    });
  });
});
