import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { keepLostIds, keptLostIds, lostIdsFile } from './lost-ids.js';

describe('the ids a final sweep leaves to cleanup', () => {
  let root: string;
  beforeEach(() => {
    root = join(mkdtempSync(join(tmpdir(), 'cc-lost-ids-')), 'lost-ids');
  });
  afterEach(() => rmSync(join(root, '..'), { recursive: true, force: true }));
  const [a, b, c] = ['a', 'b', 'c'].map((x) => x.repeat(64)) as [string, string, string];

  it('keeps a run’s ids in a file of its own, and gives them back by run', () => {
    expect(keepLostIds('run-1', [a, b, a], root)).to.equal(undefined);
    expect(keepLostIds('run-2', [c], root)).to.equal(undefined);
    expect(readFileSync(lostIdsFile('run-1', root), 'utf8')).to.equal(`${a}\n${b}\n`);
    expect(keptLostIds(undefined, root)).to.deep.equal(
      new Map([
        ['run-1', [a, b]],
        ['run-2', [c]],
      ]),
    );
    expect(keptLostIds('run-2', root)).to.deep.equal(new Map([['run-2', [c]]]));
  });

  it('replaces what was kept, and lets the file go once no id is left to stop', () => {
    keepLostIds('run-1', [a, b], root);
    keepLostIds('run-1', [b], root);
    expect(keptLostIds('run-1', root)).to.deep.equal(new Map([['run-1', [b]]]));
    expect(keepLostIds('run-1', [], root)).to.equal(undefined);
    expect(readdirSync(root)).to.deep.equal([]);
    expect(keepLostIds('never-kept', [], root)).to.equal(undefined);
  });

  it('names no path outside its folder for a run id a user typed, and reads only full ids', () => {
    expect(lostIdsFile('../../etc/x', root)).to.equal(join(root, '______etc_x'));
    keepLostIds('../../etc/x', [a], root);
    writeFileSync(join(root, 'edited'), `${b}\nnot-an-id\n${'d'.repeat(63)}\n`);
    expect(keptLostIds('../../etc/x', root)).to.deep.equal(new Map([['______etc_x', [a]]]));
    expect(keptLostIds('edited', root)).to.deep.equal(new Map([['edited', [b]]]));
  });

  it('finds nothing before any sweep kept an id', () => {
    expect(keptLostIds(undefined, root).size).to.equal(0);
    expect(keptLostIds('run-1', root).size).to.equal(0);
  });
});
