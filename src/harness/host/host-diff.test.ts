import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { newSince, stillThere, takeBaseline } from './host-diff.js';
import type { HostLeak } from './host-findings.js';

function sleeper(name: string): Promise<ChildProcess> {
  const child = spawn('sleep', ['60'], { argv0: name, stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(child));
    child.once('error', reject);
  });
}

describe('leftovers found by diffing the host', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });

  it('blames a new process that names a trial id, and nothing another run started meanwhile', async () => {
    const [mine, theirs, older] = [1, 2, 3].map(() => randomBytes(32).toString('hex'));
    children.push(await sleeper(`cc-test-${older}`));
    const baseline = takeBaseline();
    const leaked = await sleeper(`cc-test-${mine}`);
    children.push(leaked, await sleeper(`cc-test-${theirs}`));
    const leaks = newSince(baseline, { ids: [mine ?? '', older ?? ''] });
    expect(leaks.map((l) => l.kind)).to.deep.equal(['process']);
    expect(leaks[0]?.what).to.match(new RegExp(`^pid ${leaked.pid} `));
  });

  it('follows no id that existed before the trial', async () => {
    const earlier = randomBytes(32).toString('hex');
    const baseline = takeBaseline();
    children.push(await sleeper(`cc-test-${earlier}`));
    expect(newSince(baseline, { ids: [earlier], known: new Set([earlier]) })).to.deep.equal([]);
  });

  it('blames a network namespace only through its owner', () => {
    const baseline = takeBaseline();
    baseline.netns.clear();
    expect(
      newSince(baseline, { ids: [], netnsOwners: new Map() }).filter((l) => l.kind === 'netns'),
    ).to.deep.equal([]);
  });

  it('looks again at each leftover by itself: a process that exited and a directory removed are gone', async () => {
    const id = randomBytes(32).toString('hex');
    const baseline = takeBaseline();
    const child = await sleeper(`cc-test-${id}`);
    children.push(child);
    const [process] = newSince(baseline, { ids: [id] });
    const dir = mkdtempSync(join(tmpdir(), 'cc-still-'));
    const record: HostLeak = {
      kind: 'runtime-record',
      what: 'containerd container x',
      object: 'container x',
    };
    const leaks: HostLeak[] = [process as HostLeak, { kind: 'cgroup', what: dir, object: 'x' }, record];
    expect(stillThere(leaks)).to.deep.equal(leaks);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true });
    expect(stillThere(leaks), 'a runtime record is left to its reader').to.deep.equal([record]);
  });
});
