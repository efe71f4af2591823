import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { snapshotTree, treeChanges } from './tree-changes.js';

describe('npm test: what the tests changed in the working tree', () => {
  let repo: string;
  beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), 'cc-tree-'));
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(join(repo, '.gitignore'), 'reports/\n');
    writeFileSync(join(repo, 'sample.json'), '{}\n');
    writeFileSync(join(repo, 'edited.ts'), 'a\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'start');
    writeFileSync(join(repo, 'edited.ts'), 'b\n');
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it('names a tracked file the tests rewrote and a new file they left, not ignored ones', () => {
    const before = snapshotTree(repo);
    writeFileSync(join(repo, 'sample.json'), '{"runs": []}\n');
    writeFileSync(join(repo, 'left.txt'), 'x');
    mkdirSync(join(repo, 'reports'));
    writeFileSync(join(repo, 'reports', 'summary.txt'), '1 passed');
    const after = snapshotTree(repo);
    expect(before && after && treeChanges(before, after)).to.deep.equal(['left.txt', 'sample.json']);
  });

  it('leaves out what was changed before the run and not again, and counts a second edit', () => {
    const before = snapshotTree(repo);
    expect(before && treeChanges(before, snapshotTree(repo) ?? new Map())).to.deep.equal([]);
    writeFileSync(join(repo, 'edited.ts'), 'c\n');
    expect(before && treeChanges(before, snapshotTree(repo) ?? new Map())).to.deep.equal(['edited.ts']);
  });

  it('has nothing to compare outside a git work tree', () => {
    const outside = mkdtempSync(join(tmpdir(), 'cc-tree-'));
    try {
      expect(snapshotTree(outside)).to.equal(undefined);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
