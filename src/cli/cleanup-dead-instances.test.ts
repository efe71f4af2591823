/**
 * A killed `run --isolated` whose supervisor was killed too leaves its private instance. Only
 * `cleanup --isolated` removes it; plain `cleanup` and `doctor` must name it and the command that does,
 * and cleanup must not exit 0. The record is indexed where a run indexes it, for the fake's endpoint only:
 * no other run's sweep looks at it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type FakeRuntime, startFakeRuntime } from '../harness/check/fake-runtime.test.helper.js';
import { currentOwner } from '../harness/host/run-owner.js';
import { indexInstance, unindexInstance, writeInstanceFile } from '../instance/instance-file.js';
import { main } from './main.js';
import { recordingIo } from './test-io.test.helper.js';

describe('plain cleanup and doctor name the private instances killed --isolated runs left', function () {
  this.timeout(30_000);
  let fake: FakeRuntime;
  let dir: string;
  let id: string;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'cc-dead-instance-')), 'inst');
    id = `test-dead-${process.pid}`;
    mkdirSync(dir);
    writeInstanceFile(dir, {
      id,
      target: fake.endpoint,
      owner: { ...currentOwner(), pid: spawnSync('true').pid as number },
      binary: '/usr/bin/containerd',
      path: '/usr/bin',
      runcBinary: '/usr/sbin/runc',
      network: { number: 0, bridge: '', subnet: '', name: '' },
    });
    indexInstance(id, dir);
  });
  afterEach(() => {
    unindexInstance(id, dir);
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });

  const removeWith = () => `cri-conform cleanup --isolated -r ${fake.endpoint}`;

  it('cleanup without --isolated names the instance and the command that removes it, leaves it, and exits 1', async () => {
    const io = recordingIo();
    const code = await main(['node', 'cri-conform', 'cleanup', '-r', fake.endpoint], io);
    expect(code, io.stderr()).to.equal(1);
    expect(io.stderr()).to.contain(
      `cri-conform: left the private instance ${dir} of a killed --isolated run (its daemon, bridge, netns and files); remove it with: ${removeWith()}\n`,
    );
    expect(existsSync(dir), 'removing it stops a daemon: only --isolated does').to.equal(true);
  });

  it('doctor warns about it and says what to run', async () => {
    const io = recordingIo();
    const flags = ['-r', fake.endpoint, '--config', '/dev/null', '--node-probes', 'off'];
    await main(['node', 'cri-conform', 'doctor', ...flags], io);
    expect(io.stdout()).to.contain(
      `warn killed --isolated runs left a private instance of this runtime, still holding the node's resources: ${dir}\n       -> run: ${removeWith()}\n`,
    );
  });
});
