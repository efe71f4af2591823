import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { recordProcess } from './processes.js';
import { releaseRemoval, takeRemoval } from './removal-lock.js';

describe('one remover of an instance at a time', () => {
  let dir: string;
  let other: ChildProcess | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-lock-'));
  });
  afterEach(() => {
    other?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves the instance to a running remover, and names it', async () => {
    other = spawn('sleep', ['30'], { stdio: 'ignore' });
    await new Promise((resolve) => other?.once('spawn', resolve));
    writeFileSync(join(dir, 'removing'), JSON.stringify(recordProcess(other.pid ?? 0)));
    expect(takeRemoval(dir)).to.equal(other.pid);
  });

  it('takes over from a remover that died, or whose pid is another process now', () => {
    writeFileSync(join(dir, 'removing'), JSON.stringify({ pid: spawnSync('true').pid, startTime: '1' }));
    expect(takeRemoval(dir)).to.equal(undefined);
    releaseRemoval(dir);
    writeFileSync(join(dir, 'removing'), JSON.stringify({ pid: 1, startTime: 'not-init' }));
    expect(takeRemoval(dir)).to.equal(undefined);
    releaseRemoval(dir);
    expect(takeRemoval(dir)).to.equal(undefined);
  });
});
