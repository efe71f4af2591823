/**
 * A results.json that looks like one at first sight but is not what a run writes: every command that reads
 * it (report as HTML, as a matrix and as a bug report, diff, and --baseline of report and run) says which
 * file and which field is wrong, in one line, exit 2, instead of a TypeError from deep in a renderer.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { renderJson } from '../report/json.js';
import { sampleOutcome } from '../report/sample-outcome.test.helper.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

const argv = (...args: string[]) => ['node', 'cri-conform', ...args];

type Doc = {
  schemaVersion: unknown;
  properties: Record<string, unknown>;
  results: Record<string, unknown>[];
};

const firstTimeline = (d: Doc) => d.results[1]?.timeline as unknown[];

const MALFORMED: { what: string; change: (d: Doc) => void; says: string }[] = [
  { what: 'empty properties', change: (d) => (d.properties = {}), says: 'properties.runId must be a string' },
  {
    what: 'a runtimeName that is a number',
    change: (d) => (d.properties.runtimeName = 5),
    says: 'properties.runtimeName must be a string, not the number 5',
  },
  {
    what: 'a result without a title',
    change: (d) => delete d.results[0]?.title,
    says: 'results[0] (IDEM-01): title must be a string, not missing',
  },
  {
    what: 'a result without a level',
    change: (d) => delete d.results[0]?.level,
    says: 'results[0] (IDEM-01): level must be one of MUST, SHOULD, OBSERVE, not missing',
  },
  {
    what: 'a result without a suite',
    change: (d) => delete d.results[2]?.suite,
    says: 'results[2] (NAME-01): suite must be a string',
  },
  {
    what: 'a null timeline entry',
    change: (d) => (firstTimeline(d)[1] = null),
    says: 'results[1] (IDEM-02): timeline[1] must be an object, not null',
  },
  {
    what: 'a timeline entry that is a number',
    change: (d) => (firstTimeline(d)[0] = 1),
    says: 'results[1] (IDEM-02): timeline[0] must be an object, not the number 1',
  },
  {
    what: 'a timeline entry of neither kind',
    change: (d) => (firstTimeline(d)[2] = { t: 'x' }),
    says: 'results[1] (IDEM-02): timeline[2].kind must be one of cri, nri, note, not missing',
  },
  {
    what: 'a note without its text',
    change: (d) => delete (firstTimeline(d)[2] as Record<string, unknown>).text,
    says: 'results[1] (IDEM-02): timeline[2].text must be a string, not missing',
  },
  {
    what: 'a verdict outside the enum',
    change: (d) => ((d.results[0] as Record<string, unknown>).verdict = 'weird'),
    says: 'results[0] (IDEM-01): verdict must be one of passed, failed, error, skipped, deviation, observed, not "weird"',
  },
  {
    what: 'a schemaVersion that is a string',
    change: (d) => (d.schemaVersion = '7'),
    says: 'schemaVersion must be a number, not the string "7"',
  },
  {
    what: 'a schemaVersion newer than this cri-conform knows',
    change: (d) => (d.schemaVersion = 10),
    says: 'schemaVersion 10 was written by a newer cri-conform (this one reads 1 to 9): upgrade cri-conform',
  },
];

describe('commands that read a malformed results.json', function () {
  this.timeout(20_000);
  let dir: string;
  let good: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-'));
    good = join(dir, 'good.json');
    writeFileSync(good, renderJson(sampleOutcome()));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const m of MALFORMED) {
    it(`name the file and the field for ${m.what}`, async () => {
      const bad = join(dir, `${m.what.replaceAll(' ', '-')}.json`);
      const doc = JSON.parse(renderJson(sampleOutcome())) as Doc;
      m.change(doc);
      writeFileSync(bad, JSON.stringify(doc));
      const html = join(dir, 'out.html');
      for (const args of [
        ['report', bad, '--html', html],
        ['report', bad, good],
        ['report', bad, '--issue', 'IDEM-02'],
        ['report', good, '--baseline', bad, '--html', html],
        ['diff', good, bad],
        ['diff', bad, good],
        ['run', '-r', `unix://${join(dir, 'nobody.sock')}`, '--config', '/dev/null', '--baseline', bad],
      ]) {
        const io = recordingIo({ NO_COLOR: '1' });
        const code = await main(argv(...args), io);
        const said = `${args.join(' ')}: ${io.stderr()}`;
        expect(code, said).to.equal(2);
        const lines = io.stderr().trim().split('\n');
        expect(lines, said).to.have.length(1);
        const prefix = `cri-conform: ${bad} is not a cri-conform results file: ${m.says}`;
        expect(lines[0]?.startsWith(prefix), `${said}\nexpected it to start with ${prefix}`).to.equal(true);
      }
    });
  }
});
