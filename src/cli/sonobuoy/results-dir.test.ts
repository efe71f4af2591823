import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { publishResults, type ResultsFs, realResultsFs } from './results-dir.js';

/** The real file system, with every operation logged in order. */
function loggingFs(log: string[]): ResultsFs {
  return {
    mkdir: (p) => realResultsFs.mkdir(p),
    writeFile: async (p, c) => {
      log.push(`write ${p.split('/').at(-1)}`);
      await realResultsFs.writeFile(p, c);
    },
    rename: async (from, to) => {
      log.push(`rename ${from.split('/').at(-1)} -> ${to.split('/').at(-1)}`);
      await realResultsFs.rename(from, to);
    },
    rm: async (p) => {
      log.push(`rm ${p.split('/').at(-1)}`);
      await realResultsFs.rm(p);
    },
  };
}

describe('the Sonobuoy results dir', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes done last, naming the absolute path of the results directory, so every report is uploaded', async () => {
    const log: string[] = [];
    const path = await publishResults(
      join(dir, 'results'),
      { junit: '<testsuites/>', json: '{}', html: '<html></html>' },
      loggingFs(log),
    );
    expect(path).to.equal(join(dir, 'results'));
    expect(readFileSync(join(dir, 'results', 'done'), 'utf8')).to.equal(path);
    expect(readFileSync(join(path, 'junit.xml'), 'utf8')).to.equal('<testsuites/>');
    expect(readFileSync(join(path, 'report.html'), 'utf8')).to.equal('<html></html>');
    expect(log.at(-1)).to.match(/^rename \.done\.\d+\.tmp -> done$/);
    const junitInPlace = log.findIndex((l) => l.endsWith('-> junit.xml'));
    const jsonInPlace = log.findIndex((l) => l.endsWith('-> results.json'));
    const htmlInPlace = log.findIndex((l) => l.endsWith('-> report.html'));
    const doneWritten = log.findIndex((l) => l.startsWith('write .done.'));
    expect(junitInPlace).to.be.within(0, doneWritten - 1);
    expect(jsonInPlace).to.be.within(0, doneWritten - 1);
    expect(htmlInPlace).to.be.within(0, doneWritten - 1);
  });

  it('writes each file under a dot name and renames it into place, so none is ever seen half-written', async () => {
    const log: string[] = [];
    await publishResults(dir, { junit: '<testsuites/>', json: '{}' }, loggingFs(log));
    const writes = log.filter((l) => l.startsWith('write '));
    expect(writes).to.have.length(3);
    for (const w of writes) expect(w).to.match(/^write \.(junit\.xml|results\.json|done)\.\d+\.tmp$/);
    expect(readdirSync(dir).sort()).to.deep.equal(['done', 'junit.xml', 'results.json']);
  });

  it('removes a done left by an earlier container before writing the new reports', async () => {
    writeFileSync(join(dir, 'done'), '/old/junit.xml');
    const log: string[] = [];
    await publishResults(dir, { junit: '<testsuites/>' }, loggingFs(log));
    expect(log[0]).to.equal('rm done');
    expect(readdirSync(dir).sort()).to.deep.equal(['done', 'junit.xml']);
  });
});
