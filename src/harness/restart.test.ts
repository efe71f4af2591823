/**
 * --restart-cmd must restart the runtime, not only exit 0: the process serving the CRI socket must have
 * changed once the runtime answers again, or the check that asked for the restart is an ERROR.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startReferenceRuntime } from '../../fixtures/reference/start.js';
import { CriClient } from '../cri/client.js';
import type { CheckContext } from './context.js';
import { executeCheck } from './execute-check.js';
import { type FakeRuntime, fakeEnv, startFakeRuntime, testCheck } from './fake-runtime.test.helper.js';
import { changed, type RuntimeIdentity, runtimeIdentity } from './runtime-identity.js';

const restarting = testCheck(
  async (t: CheckContext) => {
    await t.restartRuntime();
    t.expect(true, 'the runtime came back');
  },
  { tags: ['Restart'] },
);

describe('--restart-cmd: the runtime process must change', () => {
  describe('on the fake CRI', () => {
    let fake: FakeRuntime;
    before(async () => {
      fake = await startFakeRuntime();
    });
    after(() => fake.close());

    const withRestart = (command: string, endpoint = fake.endpoint) => ({
      ...fakeEnv(fake.client),
      restart: { command, timeoutMs: 5_000, endpoint },
    });

    it('makes a check ERROR when the command exits 0 but restarts nothing (an early-returning wrapper)', async () => {
      const r = await executeCheck(withRestart('exit 0'), restarting, 10_000);
      expect(r.verdict).to.equal('error');
      expect(r.message).to.match(
        new RegExp(
          `^--restart-cmd exited 0 but the runtime did not restart: ${fake.endpoint} was served by pid ${process.pid}, socket inode \\d+ and is still pid ${process.pid}, socket inode \\d+ once it answered again; .*not systemctl --no-block`,
        ),
      );
      expect(r.detail, 'a known error, no stack').to.equal(undefined);
    });

    it('makes a check ERROR when no restart can be shown at all (a remote endpoint)', async () => {
      const r = await executeCheck(withRestart('exit 0', 'tcp://10.0.0.1:1234'), restarting, 10_000);
      expect(r.verdict).to.equal('error');
      expect(r.message).to.equal(
        'cannot tell whether --restart-cmd restarts the runtime (tcp://10.0.0.1:1234 is not a unix socket of this host), so no restart could be shown',
      );
    });
  });

  it('passes a command that does restart it (the reference runtime serves on a new socket)', async () => {
    const runtime = await startReferenceRuntime({ restartVia: 'socket' });
    const endpoint = runtime.env.CONTAINER_RUNTIME_ENDPOINT ?? '';
    const client = await CriClient.connect({ runtimeEndpoint: endpoint });
    try {
      const env = {
        ...fakeEnv(client),
        restart: { command: runtime.env.CRI_CONFORM_RESTART_CMD ?? '', timeoutMs: 10_000, endpoint },
      };
      const r = await executeCheck(env, restarting, 20_000);
      expect(r.verdict, r.message).to.equal('passed');
    } finally {
      client.close();
      await runtime.close();
    }
  });

  describe('runtimeIdentity reads the host tables', () => {
    const proc = mkdtempSync(join(tmpdir(), 'cc-proc-'));
    after(() => rmSync(proc, { recursive: true, force: true }));
    /** A /proc with one listener on `path` (inode 4711) held by pid 812, and a connected socket by pid 9. */
    const table = (path: string, inode = '4711') => {
      mkdirSync(join(proc, 'net'), { recursive: true });
      writeFileSync(
        join(proc, 'net/unix'),
        [
          'Num       RefCount Protocol Flags    Type St Inode Path',
          `0000000000000000: 00000002 00000000 00010000 0001 01 ${inode} ${path}`,
          `0000000000000000: 00000003 00000000 00000000 0001 03 5000 ${path}`,
        ].join('\n'),
      );
      for (const [pid, target] of [
        ['812', `socket:[${inode}]`],
        ['9', 'socket:[5000]'],
      ] as const) {
        rmSync(join(proc, pid), { recursive: true, force: true });
        mkdirSync(join(proc, pid, 'fd'), { recursive: true });
        symlinkSync(target, join(proc, pid, 'fd', '3'));
      }
    };

    const known = (id: RuntimeIdentity | { unknown: string }): RuntimeIdentity => {
      if ('unknown' in id) throw new Error(id.unknown);
      return id;
    };

    it('finds the listening socket of the path and the process that holds it', async () => {
      table('/run/x/containerd.sock');
      const id = await runtimeIdentity('unix:///run/x/containerd.sock', { proc });
      expect(id).to.deep.equal({ inodes: ['4711'], pids: [812] });
      table('/run/x/containerd.sock', '4712');
      const after = await runtimeIdentity('/run/x/containerd.sock', { proc });
      expect(changed(known(id), known(after))).to.equal(true);
    });

    it('says why when nothing listens on the path', async () => {
      table('/run/other.sock');
      expect(await runtimeIdentity('unix:///run/x/containerd.sock', { proc })).to.deep.equal({
        unknown: `no process listens on /run/x/containerd.sock in ${proc}/net/unix`,
      });
    });
  });
});
