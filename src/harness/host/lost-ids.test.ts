import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { idsFileIsOf } from '../core/own-ids.js';
import { forgetLostIds, keepLostIds, keptLostIds, lostIdsFile } from './lost-ids.js';

describe('the ids a final sweep leaves to cleanup', () => {
  let root: string;
  beforeEach(() => {
    root = join(mkdtempSync(join(tmpdir(), 'cc-lost-ids-')), 'lost-ids');
  });
  afterEach(() => rmSync(join(root, '..'), { recursive: true, force: true }));
  const [a, b, c] = ['a', 'b', 'c'].map((x) => x.repeat(64)) as [string, string, string];
  const CONTAINERD = 'unix:///run/containerd/containerd.sock';
  const CRIO = '/var/run/crio/crio.sock';
  /** The kept ids by run, without their endpoint. */
  const idsOf = (runId?: string) => new Map([...keptLostIds(runId, root)].map(([run, f]) => [run, f.ids]));

  it('keeps a run’s ids in a file of its own that names their endpoint, and gives them back by run', () => {
    expect(keepLostIds('run-1', [a, b, a], CONTAINERD, root)).to.equal(undefined);
    expect(keepLostIds('run-2', [c], CRIO, root)).to.equal(undefined);
    expect(readFileSync(lostIdsFile('run-1', root), 'utf8')).to.equal(
      `# endpoint /run/containerd/containerd.sock\n${a}\n${b}\n`,
    );
    expect(keptLostIds(undefined, root)).to.deep.equal(
      new Map([
        ['run-1', { endpoint: '/run/containerd/containerd.sock', ids: [a, b] }],
        ['run-2', { endpoint: CRIO, ids: [c] }],
      ]),
    );
    expect(idsOf('run-2')).to.deep.equal(new Map([['run-2', [c]]]));
  });

  it('says the ids of one socket are its own however the endpoint is written, and another’s are not', () => {
    keepLostIds('run-1', [a], CONTAINERD, root);
    writeFileSync(join(root, 'older'), `${c}\n`);
    const [ofContainerd, older] = [
      keptLostIds('run-1', root).get('run-1'),
      keptLostIds('older', root).get('older'),
    ];
    expect(ofContainerd && idsFileIsOf(ofContainerd, '/run/containerd/containerd.sock')).to.equal(true);
    expect(ofContainerd && idsFileIsOf(ofContainerd, '/var/run/containerd/containerd.sock')).to.equal(true);
    expect(ofContainerd && idsFileIsOf(ofContainerd, `unix://${CRIO}`)).to.equal(false);
    // A file written before files named their endpoint may be any runtime's.
    expect(older && idsFileIsOf(older, CRIO)).to.equal(true);
  });

  it('knows a live socket by the file it leads to, through a symlinked folder too', async () => {
    const dir = join(root, '..', 'sockets');
    mkdirSync(dir);
    symlinkSync(dir, join(root, '..', 'linked'));
    const servers = ['a.sock', 'b.sock'].map((name) => createServer().listen(join(dir, name)));
    await Promise.all(servers.map((srv) => new Promise((resolve) => srv.once('listening', resolve))));
    try {
      keepLostIds('run-1', [a], `unix://${join(root, '..', 'linked', 'a.sock')}`, root);
      const kept = keptLostIds('run-1', root).get('run-1');
      expect(kept && idsFileIsOf(kept, join(dir, 'a.sock'))).to.equal(true);
      expect(kept && idsFileIsOf(kept, join(dir, 'b.sock'))).to.equal(false);
    } finally {
      for (const srv of servers) srv.close();
    }
  });

  it('replaces what was kept, and lets the file go once no id is left to stop', () => {
    keepLostIds('run-1', [a, b], CONTAINERD, root);
    keepLostIds('run-1', [b], CONTAINERD, root);
    expect(idsOf('run-1')).to.deep.equal(new Map([['run-1', [b]]]));
    expect(keepLostIds('run-1', [], CONTAINERD, root)).to.equal(undefined);
    expect(readdirSync(root)).to.deep.equal([]);
    expect(keepLostIds('never-kept', [], CONTAINERD, root)).to.equal(undefined);
  });

  it('names no path outside its folder for a run id a user typed, and reads only full ids', () => {
    expect(lostIdsFile('../../etc/x', root)).to.equal(join(root, '______etc_x'));
    keepLostIds('../../etc/x', [a], CONTAINERD, root);
    writeFileSync(join(root, 'edited'), `${b}\nnot-an-id\n${'d'.repeat(63)}\n`);
    expect(idsOf('../../etc/x')).to.deep.equal(new Map([['______etc_x', [a]]]));
    expect(idsOf('edited')).to.deep.equal(new Map([['edited', [b]]]));
  });

  it('finds nothing before any sweep kept an id', () => {
    expect(keptLostIds(undefined, root).size).to.equal(0);
    expect(keptLostIds('run-1', root).size).to.equal(0);
  });

  it('lets go of the ids of objects removed since, in every run of their endpoint, and keeps the rest', () => {
    keepLostIds('removed-by-cleanup', [a, b], CONTAINERD, root);
    keepLostIds('run-2', [a], CONTAINERD, root);
    keepLostIds('run-3', [a, c], CRIO, root);
    expect(forgetLostIds([a], '/run/containerd/containerd.sock', root)).to.deep.equal([]);
    expect(idsOf()).to.deep.equal(
      new Map([
        ['removed-by-cleanup', [b]],
        ['run-3', [a, c]],
      ]),
    );
    expect(keptLostIds('removed-by-cleanup', root).get('removed-by-cleanup')?.endpoint).to.equal(
      '/run/containerd/containerd.sock',
    );
  });
});
