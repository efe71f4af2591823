/**
 * The supervisor process (`node supervisor-main.js DIR [OWNER_EXIT_WITHIN_MS]`, started by supervisor.ts):
 * waits for its stdin to end, and removes the instance in DIR unless the run released it first or still
 * runs once OWNER_EXIT_WITHIN_MS (default 10 s) have passed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ownerAlive, readInstanceFile } from './instance-file.js';
import { REMOVAL_WITHIN_MS, removeInstance } from './removal.js';
import { RELEASE } from './supervisor.js';

/** A process is gone a moment after its file descriptors are closed: how long that moment may be. */
const OWNER_EXIT_WITHIN_MS = 10_000;
const POLL_MS = 50;

function log(text: string): void {
  process.stderr.write(`${new Date().toISOString()} cri-conform supervisor ${process.pid}: ${text}\n`);
}

async function supervise(dir: string | undefined, ownerExitWithinMs: number): Promise<void> {
  const info = dir ? readInstanceFile(dir) : undefined;
  if (!dir || !info)
    throw new Error(`usage: supervisor-main.js DIR (a private instance's directory); got ${dir}`);
  let received = '';
  for await (const chunk of process.stdin) received += String(chunk);
  if (received.includes(RELEASE)) return;
  // A last resort: every step of the removal is bounded, and so is this process.
  setTimeout(
    () => {
      log('did not finish in time; exiting');
      process.exit(1);
    },
    ownerExitWithinMs + REMOVAL_WITHIN_MS + 10_000,
  ).unref();
  const deadline = Date.now() + ownerExitWithinMs;
  while (ownerAlive(info.owner) && Date.now() < deadline) await sleep(POLL_MS);
  if (ownerAlive(info.owner)) {
    log(`the pipe from run ${info.owner.pid} closed but the run still runs: leaving its instance to it`);
    return;
  }
  log(`run ${info.owner.pid} is gone without removing its private instance ${dir}: removing it`);
  const left = await removeInstance(dir, info);
  log(left.length === 0 ? 'removed; nothing of it is left' : `removal left: ${left.join('; ')}`);
}

supervise(process.argv[2], Number(process.argv[3] ?? OWNER_EXIT_WITHIN_MS)).then(
  () => {
    process.exitCode = 0;
  },
  (e: unknown) => {
    log(e instanceof Error ? e.message : String(e));
    process.exitCode = 1;
  },
);
