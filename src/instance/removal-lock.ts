/**
 * One remover of an instance at a time: the run at its end, its supervisor after the run died, and
 * `cleanup --isolated` (or another run's sweep) may all reach the same instance. The first writes
 * `<dir>/removing`, naming itself with its start time; a second finds it and leaves the instance alone
 * while that process runs. A remover that died left a file no running process answers to: it is taken over.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type RecordedProcess, recordProcess, stillRunning } from './processes.js';

const LOCK_FILE = 'removing';

/** Takes the removal of `dir`; undefined when taken, else the pid of the running process that holds it. */
export function takeRemoval(dir: string): number | undefined {
  const file = join(dir, LOCK_FILE);
  const self = JSON.stringify(recordProcess(process.pid) ?? { pid: process.pid, startTime: '' });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, self, { flag: 'wx' });
      return undefined;
    } catch (e) {
      // A directory already gone has nothing left to remove but what is outside it: go on without a lock.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      const holder = holderOf(file);
      if (holder !== undefined && holder.pid !== process.pid && stillRunning(holder)) return holder.pid;
      rmSync(file, { force: true });
    }
  }
  return undefined;
}

export function releaseRemoval(dir: string): void {
  const file = join(dir, LOCK_FILE);
  if (holderOf(file)?.pid === process.pid) rmSync(file, { force: true });
}

function holderOf(file: string): RecordedProcess | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as RecordedProcess;
  } catch {
    return undefined;
  }
}
