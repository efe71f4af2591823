/**
 * The private instance's supervisor: a small process that ends the instance when the run that started it
 * is gone, however it went (SIGKILL included, which no handler of the run sees). The run starts it right
 * after the instance's record is written and before anything of the instance exists on the host, and
 * holds the only write end of a pipe to its stdin:
 * - the run's process ending, however, closes that end: the supervisor reads EOF, waits until the run's
 *   process has really gone (recorded pid and start time, run-owner.ts), and removes the instance as
 *   `cleanup --isolated` would (removal.ts, bounded); a run still running is never acted on;
 * - a run that removed its instance itself writes `done` first: the supervisor then exits without acting.
 * Either way it exits, so it cannot outlive both the run and the removal. It runs in a session of its own,
 * so the Ctrl-C or the hang-up that reaches the run's process group does not reach it; libuv opens every
 * pipe close-on-exec, so no process the run starts (the daemon, a restart command) holds the write end.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RecordedProcess, recordProcess } from './processes.js';

/** What the run writes before it lets go of a supervisor whose instance it removed itself. */
export const RELEASE = 'done';
/** Its own log, in the instance's directory: gone with the directory once the instance is. */
export const SUPERVISOR_LOG = 'supervisor.log';

export interface Supervisor {
  readonly process: RecordedProcess | undefined;
  /** The run removed the instance itself: the supervisor exits without acting. */
  release(): void;
}

export function startSupervisor(dir: string): Supervisor {
  const main = join(dirname(fileURLToPath(import.meta.url)), 'supervisor-main.js');
  const log = openSync(join(dir, SUPERVISOR_LOG), 'a');
  try {
    const child = spawn(process.execPath, [main, dir], {
      detached: true,
      stdio: ['pipe', 'ignore', log],
      cwd: '/',
    });
    child.unref();
    // The pipe must not keep the run alive either: only its end matters, not its traffic.
    child.stdin?.on('error', () => undefined);
    (child.stdin as { unref?: () => void } | null)?.unref?.();
    const recorded = child.pid === undefined ? undefined : recordProcess(child.pid);
    return {
      process: recorded,
      release: () => {
        child.stdin?.end(`${RELEASE}\n`);
      },
    };
  } finally {
    closeSync(log);
  }
}
