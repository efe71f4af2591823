/**
 * Restarting the runtime through the user's command, then waiting until it is healthy again. A command
 * that exits 0 proves nothing by itself (`systemctl restart --no-block`, a wrapper that returns early or
 * restarts something else): the process serving the CRI socket must have changed once the runtime
 * answers again, or no restart was tested and the check is an ERROR.
 */
import { spawn } from 'node:child_process';
import type { CriClient } from '../../cri/client.js';
import { errorMessage, SetupError } from '../core/errors.js';
import { notYet, poll, sleep } from '../core/waits.js';
import {
  describeSocket,
  type ServingSocket,
  sameSocket,
  secondsSinceBoot,
  servingSocket,
  socketHolders,
} from './runtime-identity.js';

/**
 * How long after the runtime first answers again its new listener may take to show in /proc/net/unix. A
 * client's open connection to the old process can still answer while that process drains, so the first
 * answer may come before the new socket is there.
 */
const SHOWN_WITHIN_MS = 2_000;
const SHOWN_POLL_MS = 100;

export interface RestartSpec {
  command: string;
  timeoutMs: number;
  /** The CRI endpoint, whose serving process must change. */
  endpoint: string;
  /** Told once a restart is shown, so a crash watch does not take it for a crash. */
  onRestarted?: () => Promise<void>;
}

/**
 * Restarts the runtime and waits until it answers again from a new process, bounded by the restart's own
 * timeout. Never cut short, not even by the run's stop: a runtime killed halfway through its restart serves
 * no pod, a check that wedged it on purpose (TEAR-16) restarts it to undo that, and the crash watch must
 * learn of the restart (onRestarted) or it takes the new socket for a crash.
 */
export async function restartRuntime(client: CriClient, restart: RestartSpec): Promise<number> {
  const started = Date.now();
  const before = await servingSocket(restart.endpoint);
  if ('unknown' in before) {
    throw new SetupError(
      `cannot tell whether --restart-cmd restarts the runtime (${before.unknown}), so no restart could be shown`,
    );
  }
  const commandAtSec = await secondsSinceBoot();
  await runShell(restart.command, restart.timeoutMs);
  await poll(
    async () => {
      await client.call('Version', { version: 'v1' }, { deadlineMs: 1_000 });
      const status = await client.call('Status', { verbose: false }, { deadlineMs: 1_000 });
      const ready = status.status?.conditions.find((c) => c.type === 'RuntimeReady');
      return (
        ready?.status === true ||
        notYet(ready ? `RuntimeReady false: ${ready.reason} ${ready.message}` : 'no RuntimeReady condition')
      );
    },
    {
      withinMs: Math.max(0, restart.timeoutMs - (Date.now() - started)),
      what: 'the runtime to answer Version and report RuntimeReady after the restart',
      everyMs: 100,
    },
  );
  const notShown = await unshownWithinGrace(restart.endpoint, before, commandAtSec);
  if (notShown) {
    throw new SetupError(
      `--restart-cmd exited 0 but the runtime did not restart: once it answered again, ${restart.endpoint} ${notShown}; the command must restart the runtime and return when it is back (not systemctl --no-block)`,
    );
  }
  await restart.onRestarted?.();
  return Date.now() - started;
}

/** Why the restart is still not shown once the grace for a new listener is over, or undefined once it is. */
async function unshownWithinGrace(
  endpoint: string,
  before: ServingSocket,
  commandAtSec: number | undefined,
): Promise<string | undefined> {
  const endAt = Date.now() + SHOWN_WITHIN_MS;
  for (;;) {
    const why = await unshownRestart(endpoint, before, commandAtSec);
    if (why === undefined || Date.now() >= endAt) return why;
    await sleep(SHOWN_POLL_MS);
  }
}

/**
 * Why the restart is not shown, or undefined when it is: a new socket serves the runtime, or (a socket the
 * service manager keeps) every process holding it started after the command did.
 */
async function unshownRestart(
  endpoint: string,
  before: ServingSocket,
  commandAtSec: number | undefined,
): Promise<string | undefined> {
  const after = await servingSocket(endpoint);
  if ('unknown' in after) return `was served by ${describeSocket(before)} and now ${after.unknown}`;
  if (!sameSocket(before, after)) return undefined;
  const holders = await socketHolders(after);
  const runtime = holders.filter((h) => h.pid !== 1);
  const fresh =
    commandAtSec !== undefined && runtime.length > 0 && runtime.every((h) => h.startedSec >= commandAtSec);
  if (fresh) return undefined;
  const old = runtime.map((h) => `pid ${h.pid}`).join(', ');
  return `is still served by ${describeSocket(after)}${old ? `, held by ${old}, which started before the command` : ''}`;
}

/**
 * In a process group of its own: the Ctrl-C a terminal sends to the tool's group must not reach
 * `systemctl restart` halfway through.
 */
function runShell(command: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
      timeout: timeoutMs,
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2_000);
    });
    child.on('error', (e) => reject(new Error(`--restart-cmd failed to start: ${errorMessage(e)}`)));
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`--restart-cmd exited with ${code}: ${stderr.trim()}`)),
    );
  });
}
