/** Restarting the runtime through the user's command, then waiting until it is healthy again. */
import { spawn } from 'node:child_process';
import type { CriClient } from '../cri/client.js';
import { errorMessage } from './errors.js';
import { poll } from './waits.js';

export async function restartRuntime(
  client: CriClient,
  restart: { command: string; timeoutMs: number },
  signal: AbortSignal,
): Promise<number> {
  const started = Date.now();
  await runShell(restart.command, restart.timeoutMs, signal);
  await poll(
    async () => {
      await client.call('Version', { version: 'v1' }, { deadlineMs: 1_000 });
      const status = await client.call('Status', { verbose: false }, { deadlineMs: 1_000 });
      return status.status?.conditions.find((c) => c.type === 'RuntimeReady')?.status === true;
    },
    {
      withinMs: Math.max(0, restart.timeoutMs - (Date.now() - started)),
      what: 'the runtime to answer Version and report RuntimeReady after the restart',
      everyMs: 100,
      signal,
    },
  );
  return Date.now() - started;
}

function runShell(command: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      stdio: ['ignore', 'ignore', 'pipe'],
      signal,
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
