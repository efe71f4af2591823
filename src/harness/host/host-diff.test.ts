import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { newSince, takeBaseline } from './host-diff.js';

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
});
