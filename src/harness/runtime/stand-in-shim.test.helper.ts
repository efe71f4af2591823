/**
 * A process that names a sandbox or container id on its command line, as a runtime's shim does
 * (`-id <id>`): what the final sweep's stray stop looks for, without a runtime.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export function standInShim(id: string): Promise<ChildProcess> {
  const child = spawn('sleep', ['60'], { argv0: `cc-test-shim -id ${id}`, stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(child));
    child.once('error', reject);
  });
}

export const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

export const exited = (c: ChildProcess) =>
  alive(c) ? new Promise<void>((resolve) => c.once('exit', () => resolve())) : Promise.resolve();
