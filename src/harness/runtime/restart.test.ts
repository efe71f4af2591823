/**
 * --restart-cmd must restart the runtime, not only exit 0: the process serving the CRI socket must have
 * changed once the runtime answers again, or the check that asked for the restart is an ERROR.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startReferenceRuntime } from '../../../fixtures/reference/start.js';
import { CriClient } from '../../cri/client.js';
import type { CheckContext } from '../check/context.js';
import { type FakeRuntime, fakeEnv, startFakeRuntime, testCheck } from '../check/fake-runtime.test.helper.js';
import { executeCheck } from '../run/execute-check.js';
import { secondsSinceBoot, servingSocket, socketHolders } from './runtime-identity.js';

const restarting = testCheck(
  async (t: CheckContext) => {
    await t.restartRuntime();
    t.expect(true, 'the runtime came back', 'unit');
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
          `^--restart-cmd exited 0 but the runtime did not restart: once it answered again, ${fake.endpoint} is still served by socket inode \\d+, held by pid ${process.pid}, which started before the command; .*not systemctl --no-block`,
        ),
      );
      expect(r.detail, 'a known error, no stack').to.equal(undefined);
    });

    it('lets a restart a [Restart] check began finish when the run stops, and waits for it before moving on', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cc-restart-'));
      const stop = new AbortController();
      try {
        const done = join(dir, 'restarted');
        // The check restarts the runtime once it is stopped, as TEAR-16 undoes the deadlock it made.
        const undoing = testCheck(
          async (t: CheckContext) => {
            await new Promise((resolve) => t.signal.addEventListener('abort', resolve, { once: true }));
            await t.restartRuntime();
          },
          { tags: ['Restart'] },
        );
        const env = {
          ...fakeEnv(fake.client, { signal: stop.signal }),
          restart: { command: `sleep 0.5; touch ${done}`, timeoutMs: 5_000, endpoint: fake.endpoint },
        };
        setTimeout(() => stop.abort(new Error('interrupted by SIGINT')), 100);
        const r = await executeCheck(env, undoing, 10_000);
        expect(r.verdict).to.equal('error');
        expect(existsSync(done), 'the restart ran to its end before the check returned').to.equal(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('makes a check ERROR when no restart can be shown at all (a remote endpoint)', async () => {
      const r = await executeCheck(withRestart('exit 0', 'tcp://10.0.0.1:1234'), restarting, 10_000);
      expect(r.verdict).to.equal('error');
      expect(r.message).to.equal(
        'cannot tell whether --restart-cmd restarts the runtime (tcp://10.0.0.1:1234 is not a unix socket of this host), so no restart could be shown',
      );
    });
  });

  /** Runs `restarting` against the reference runtime, restarted by its command as `wrap` changes it. */
  const restartReference = async (wrap: (command: string) => string) => {
    const runtime = await startReferenceRuntime({ restartVia: 'socket' });
    const endpoint = runtime.env.CONTAINER_RUNTIME_ENDPOINT ?? '';
    const client = await CriClient.connect({ runtimeEndpoint: endpoint });
    try {
      const command = wrap(runtime.env.CRI_CONFORM_RESTART_CMD ?? '');
      const env = { ...fakeEnv(client), restart: { command, timeoutMs: 10_000, endpoint } };
      return await executeCheck(env, restarting, 20_000);
    } finally {
      client.close();
      await runtime.close();
    }
  };

  it('passes a command that does restart it (the reference runtime serves on a new socket)', async () => {
    const r = await restartReference((command) => command);
    expect(r.verdict, r.message).to.equal('passed');
  });

  it('passes a restart whose new socket shows a moment after the runtime first answers again', async () => {
    // The old process still answers when the command returns; its successor listens 300 ms later.
    const r = await restartReference((command) => `(sleep 0.3; ${command}) >/dev/null 2>&1 & exit 0`);
    expect(r.verdict, r.message).to.equal('passed');
  });

  describe('the host tables that show which process serves the socket', () => {
    const proc = mkdtempSync(join(tmpdir(), 'cc-proc-'));
    after(() => rmSync(proc, { recursive: true, force: true }));
    /**
     * A /proc with one listener on `path` (inode 4711) held by pid 812, started 120 s after boot (12000
     * ticks), and a connected socket of the same path held by pid 9.
     */
    const table = (path: string) => {
      mkdirSync(join(proc, 'net'), { recursive: true });
      writeFileSync(
        join(proc, 'net/unix'),
        [
          'Num       RefCount Protocol Flags    Type St Inode Path',
          `0000000000000000: 00000002 00000000 00010000 0001 01 4711 ${path}`,
          `0000000000000000: 00000003 00000000 00000000 0001 03 5000 ${path}`,
        ].join('\n'),
      );
      writeFileSync(join(proc, 'uptime'), '300.50 1000.00\n');
      for (const [pid, target] of [
        ['812', 'socket:[4711]'],
        ['9', 'socket:[5000]'],
      ] as const) {
        rmSync(join(proc, pid), { recursive: true, force: true });
        mkdirSync(join(proc, pid, 'fd'), { recursive: true });
        symlinkSync(target, join(proc, pid, 'fd', '3'));
        const rest = Array.from({ length: 30 }, (_, i) => (i === 18 ? '12000' : '0')).join(' ');
        writeFileSync(join(proc, pid, 'stat'), `${pid} (containerd (x)) S ${rest}\n`);
      }
    };

    it('finds the listening socket of the path, and the process holding it with its start time', async () => {
      table('/run/x/containerd.sock');
      const socket = await servingSocket('unix:///run/x/containerd.sock', proc);
      expect(socket).to.deep.equal({ inodes: ['4711'] });
      if ('unknown' in socket) return;
      expect(await socketHolders(socket, proc)).to.deep.equal([{ pid: 812, startedSec: 120 }]);
      expect(await secondsSinceBoot(proc)).to.equal(300.5);
    });

    it('says why when nothing listens on the path', async () => {
      table('/run/other.sock');
      expect(await servingSocket('unix:///run/x/containerd.sock', proc)).to.deep.equal({
        unknown: `no process listens on /run/x/containerd.sock in ${proc}/net/unix`,
      });
    });
  });
});
