import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { skipBecause } from '../../skip-reason.test.helper.js';
import { freezableCgroupsOf, frozenNote, thawCgroupDir, thawCgroupsOfProcess } from './frozen-cgroups.js';
import { ON_NODE } from './node-view.js';
import type { CgroupMount } from './proc.js';

const ID = 'cri-containerd-8d6f97572f9a3c4fce9bda6a59fdba7ac65ce33831e5fd34610c81ba5452122f.scope';

describe('frozen cgroups', () => {
  const root = mkdtempSync(join(tmpdir(), 'cc-frozen-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const cgroup = (name: string, files: Record<string, string>) => {
    const dir = join(root, name);
    mkdirSync(dir);
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    return dir;
  };

  it('thaws a v1 freezer cgroup left FROZEN (or FREEZING), and says so', () => {
    for (const state of ['FROZEN', 'FREEZING']) {
      const dir = cgroup(`v1-${state}`, { 'freezer.state': `${state}\n` });
      expect(thawCgroupDir(dir)).to.equal(true);
      expect(readFileSync(join(dir, 'freezer.state'), 'utf8')).to.equal('THAWED');
    }
  });

  it('thaws a v2 cgroup left frozen', () => {
    const dir = cgroup('v2', { 'cgroup.freeze': '1\n' });
    expect(thawCgroupDir(dir)).to.equal(true);
    expect(readFileSync(join(dir, 'cgroup.freeze'), 'utf8')).to.equal('0');
  });

  it('leaves a thawed cgroup, one of another hierarchy and a missing one alone', () => {
    const thawed = cgroup('thawed', { 'freezer.state': 'THAWED\n', 'cgroup.freeze': '0\n' });
    expect(thawCgroupDir(thawed)).to.equal(false);
    expect(readFileSync(join(thawed, 'freezer.state'), 'utf8')).to.equal('THAWED\n');
    expect(thawCgroupDir(cgroup('memory', { 'memory.limit_in_bytes': '1' }))).to.equal(false);
    expect(thawCgroupDir(join(root, 'gone'))).to.equal(false);
  });

  /** The v1 freezer hierarchy mounted at its usual place, from `root` of the hierarchy. */
  const freezerMount = (root: string): CgroupMount => ({
    device: '0:35',
    mountPoint: '/sys/fs/cgroup/freezer',
    root,
    controllers: ['freezer'],
    version: 1,
  });

  it("finds a process's freezer and v2 cgroups below their hierarchies' mounts (hybrid layout)", () => {
    const mounts: CgroupMount[] = [
      { device: '0:30', mountPoint: '/sys/fs/cgroup/unified', root: '/', controllers: [], version: 2 },
      freezerMount('/'),
      { device: '0:36', mountPoint: '/sys/fs/cgroup/memory', root: '/', controllers: ['memory'], version: 1 },
    ];
    const text = [
      `11:memory:/cri_conform.slice/${ID}`,
      `10:freezer:/cri_conform.slice/${ID}`,
      `1:name=systemd:/cri_conform.slice/${ID}`,
      `0::/cri_conform.slice/${ID}`,
    ].join('\n');
    expect(freezableCgroupsOf(text, mounts)).to.deep.equal([
      `/sys/fs/cgroup/freezer/cri_conform.slice/${ID}`,
      `/sys/fs/cgroup/unified/cri_conform.slice/${ID}`,
    ]);
  });

  it("maps a cgroup below a mount whose root is not the hierarchy's, and skips one outside it", () => {
    const mounts = [freezerMount('/node')];
    expect(freezableCgroupsOf(`10:freezer:/node/cri_conform.slice/${ID}`, mounts)).to.deep.equal([
      `/sys/fs/cgroup/freezer/cri_conform.slice/${ID}`,
    ]);
    expect(freezableCgroupsOf(`10:freezer:/other/${ID}`, mounts)).to.deep.equal([]);
    // The root's name as a prefix of another cgroup's is no way in.
    expect(freezableCgroupsOf(`10:freezer:/nodes/${ID}`, mounts)).to.deep.equal([]);
  });

  it('never leads out of the hierarchy from a process in a cgroup namespace of its own', () => {
    const mounts = [freezerMount('/')];
    expect(freezableCgroupsOf(`10:freezer:/../../cri_conform.slice/${ID}`, mounts)).to.deep.equal([]);
  });
});

describe('frozen cgroups: a real frozen process', () => {
  const FREEZER = '/sys/fs/cgroup/freezer';
  let dir = '';
  let sleeper: ChildProcess | undefined;
  before(function () {
    if (process.getuid?.() !== 0 || !existsSync(join(FREEZER, 'cgroup.procs')))
      return skipBecause(this, 'needs root and a cgroup v1 freezer hierarchy at /sys/fs/cgroup/freezer');
  });
  after(() => {
    sleeper?.kill('SIGKILL');
    if (dir) rmdirSafely(dir);
  });

  it('says a process is frozen, thaws its cgroup only for an id the cgroup names, after which SIGKILL ends it', async () => {
    dir = join(FREEZER, `cri-conform-test-${process.pid}-${ID}`);
    mkdirSync(dir);
    sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    const pid = sleeper.pid as number;
    const exited = new Promise((resolve) => sleeper?.once('exit', resolve));
    writeFileSync(join(dir, 'cgroup.procs'), String(pid));
    writeFileSync(join(dir, 'freezer.state'), 'FROZEN');
    await waitFor(() => readFileSync(join(dir, 'freezer.state'), 'utf8').trim() === 'FROZEN');
    expect(frozenNote(pid, ON_NODE)).to.equal(', frozen in its cgroup');
    expect(thawCgroupsOfProcess(pid, ON_NODE, ['f'.repeat(64)]), "another id's").to.equal(false);
    expect(frozenNote(pid, ON_NODE)).to.equal(', frozen in its cgroup');
    expect(thawCgroupsOfProcess(pid, ON_NODE, [ID])).to.equal(true);
    expect(frozenNote(pid, ON_NODE)).to.equal('');
    process.kill(pid, 'SIGKILL');
    await exited;
    expect(readFileSync(join(dir, 'freezer.state'), 'utf8').trim()).to.equal('THAWED');
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  const endAt = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > endAt) throw new Error('the cgroup did not freeze within 5 s');
    await sleep(20);
  }
}

function rmdirSafely(path: string): void {
  try {
    rmdirSync(path);
  } catch {
    // a process still in it; the test's failure says why
  }
}
