import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { skipBecause } from '../../skip-reason.test.helper.js';
import { type FakeRuntime, startFakeRuntime } from '../check/fake-runtime.test.helper.js';
import type { RunConfig } from '../core/settings.js';
import { claimRunLogs, removeRunLogs, runsOfOtherProcessesOn } from '../host/pod-logs.js';
import { readProcStat } from '../host/proc.js';
import { currentOwner } from '../host/run-owner.js';
import { injectorFindings } from './readiness-injectors.js';

describe("readiness and the injectors' settings other runs use", () => {
  let fake: FakeRuntime;
  let dir: string;
  let other: ChildProcess | undefined;
  const run = `test-live-other-${process.pid}`;
  beforeEach(async () => {
    fake = await startFakeRuntime();
    dir = mkdtempSync(join(tmpdir(), 'cc-slow-cni-'));
    mkdirSync(join(dir, 'pods', 'cc-idem-01-'), { recursive: true });
    writeFileSync(join(dir, 'pods', 'cc-idem-01-', 'delay-ms'), '1500\n');
  });
  afterEach(async () => {
    other?.kill('SIGKILL');
    removeRunLogs(run);
    rmSync(dir, { recursive: true, force: true });
    await fake.close();
  });
  const findings = () =>
    injectorFindings({
      client: fake.client,
      config: { slowCniDir: dir } as RunConfig,
      handlers: [],
      active: [],
      purpose: 'doctor',
      mayCreatePod: false,
      besideKubelet: false,
      testImagePresent: false,
      cgroupParent: '/cri-conform',
    });

  it('leaves a live run’s claims alone, and says so', async () => {
    other = spawn('sleep', ['60'], { stdio: 'ignore' });
    await new Promise((resolve) => other?.once('spawn', resolve));
    const startTime = readProcStat(other.pid as number)?.startTime ?? '';
    claimRunLogs(run, { ...currentOwner(), pid: other.pid as number, startTime });
    const { findings: said } = await findings();
    expect(existsSync(join(dir, 'pods', 'cc-idem-01-', 'delay-ms')), 'the live run’s claim').to.equal(true);
    const left = said.find((f) => f.what.startsWith('injector settings left as they are: '));
    expect(left?.what).to.contain(run);
  });

  it('releases the claims a killed run left', async function () {
    // Claims in use by a run alive on this machine are rightly left alone: nothing to see here then.
    const alive = runsOfOtherProcessesOn(fake.endpoint);
    if (alive.length > 0)
      skipBecause(this, `cri-conform runs are alive on this machine (${alive.join(', ')})`);
    claimRunLogs(run, { ...currentOwner(), pid: spawnSync('true').pid as number });
    await findings();
    expect(existsSync(join(dir, 'pods', 'cc-idem-01-'))).to.equal(false);
  });
});
