import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

const argv = (...args: string[]) => ['node', 'cri-conform', ...args];

describe('run reports when the run cannot start', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("replaces the previous run's JUnit and JSON with one error case and the same reason", async () => {
    const reports = join(dir, 'reports');
    const io = recordingIo({ NO_COLOR: '1' });
    // An earlier, successful run left its files here.
    mkdirSync(reports);
    writeFileSync(join(reports, 'junit.xml'), '<testsuites name="old success"/>');
    writeFileSync(join(reports, 'results.json'), '{"old": true}');

    const socket = join(dir, 'nobody-listens.sock');
    const code = await main(
      argv('run', '-r', `unix://${socket}`, '--report-dir', reports, '--html', join(reports, 'report.html')),
      io,
    );

    expect(code).to.equal(2);
    const junit = readFileSync(join(reports, 'junit.xml'), 'utf8');
    expect(junit).not.to.contain('old success');
    expect(junit.match(/<testcase /g)).to.have.length(1);
    expect(junit).to.match(/<error message="[^"]*nobody-listens\.sock[^"]*" type="not-started">/);
    const json = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8'));
    expect(json.results).to.deep.equal([]);
    expect(json.notStarted).to.contain('nobody-listens.sock');
    expect(io.stderr()).to.contain(json.notStarted);
    expect(readFileSync(join(reports, 'report.html'), 'utf8')).to.contain('exit 2');
  });
});
