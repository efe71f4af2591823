/**
 * Beside a kubelet on a containerd whose NRI plugin sync can deadlock (plugin-sync-deadlock.ts), doctor
 * forecasts every NRI check as skipped with the reason, and not even its probe plugin connects to NRI.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type FakeRuntime, startFakeRuntime } from '../harness/check/fake-runtime.test.helper.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

describe('NRI beside a kubelet on a containerd whose plugin sync can deadlock (fake CRI)', function () {
  this.timeout(30_000);
  let fake: FakeRuntime;
  let nri: Server;
  let dir: string;
  let connections = 0;
  before(async () => {
    fake = await startFakeRuntime();
    dir = mkdtempSync(join(tmpdir(), 'cc-nri-'));
    nri = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => nri.listen(join(dir, 'nri.sock'), resolve));
  });
  after(async () => {
    nri.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const doctor = async (version: string) => {
    fake.override('Version', () => ({
      version: '0.1.0',
      runtimeName: 'containerd',
      runtimeVersion: version,
      runtimeApiVersion: 'v1',
    }));
    const io = recordingIo();
    const flags = ['--config', '/dev/null', '--node-probes', 'off', '--beside-kubelet', '--suite', 'hooks'];
    const code = await main(
      ['node', 'cri-conform', 'doctor', '-r', fake.endpoint, '--nri-socket', join(dir, 'nri.sock'), ...flags],
      io,
    );
    return { code, stdout: io.stdout() };
  };

  it('skips every NRI check on containerd 2.1.9 with the reason, and never connects to NRI', async () => {
    const { stdout } = await doctor('v2.1.9');
    expect(stdout).to.match(
      /NRI checks skip beside a kubelet: on containerd v2\.1\.9 a plugin that registers/,
    );
    expect(stdout).to.match(/HOOK-01 .*\n\s+-> NRI checks skip beside a kubelet/);
    expect(connections).to.equal(0);
  });

  it('probes NRI on containerd 1.7.24, which predates the lock', async () => {
    await doctor('1.7.24~ds1');
    expect(connections).to.be.greaterThan(0);
  });
});
