import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { EnvironmentError } from '../core/errors.js';
import { RUN_OWNER_FILE, type RuntimeClaim, removeRunLogs, runLogDirectory } from './pod-logs.js';
import { readProcStat } from './proc.js';
import { currentOwner, type RunOwner } from './run-owner.js';
import { claimRuntime } from './runtime-claim.js';

describe('one run at a time on a runtime', () => {
  let root: string;
  let socket: string;
  let server: Server;
  let other: ChildProcess;
  let otherOwner: RunOwner;
  const runId = `test-runtime-claim-${process.pid}`;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'cc-runtime-claim-'));
    socket = join(root, 'cri.sock');
    server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    other = spawn('sleep', ['60'], { stdio: 'ignore' });
    await new Promise((resolve) => other.once('spawn', resolve));
    otherOwner = {
      ...currentOwner(),
      pid: other.pid as number,
      startTime: readProcStat(other.pid as number)?.startTime ?? '',
    };
  });
  after(async () => {
    other.kill('SIGKILL');
    await new Promise((resolve) => server.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });
  afterEach(() => {
    removeRunLogs(runId);
    for (const name of ['first', 'second'])
      rmSync(join(root, 'runs', name), { recursive: true, force: true });
  });

  /** Another process's run folder under the test root, as claimRunLogs writes one. */
  function otherRun(name: string, owner: RunOwner, runtime?: RuntimeClaim): void {
    mkdirSync(join(root, 'runs', name), { recursive: true });
    writeFileSync(join(root, 'runs', name, RUN_OWNER_FILE), `${JSON.stringify({ ...owner, ...runtime })}\n`);
  }

  const claim = (endpoint: string) => claimRuntime(runId, endpoint, join(root, 'runs'));

  it('stops a run before its first pod when a live run of another process claimed the same runtime first, naming it', () => {
    otherRun('first', otherOwner, { endpoint: `unix://${socket}`, claimedAt: Date.now() - 60_000 });
    // The same socket spelt another way is the same runtime.
    expect(() => claim(`unix://${root}/./cri.sock`))
      .to.throw(EnvironmentError)
      .with.property('message')
      .that.matches(
        new RegExp(`^another cri-conform run \\(pid ${other.pid}, run folder first\\) has been testing`),
      )
      .and.contains('--isolated');
    expect(existsSync(runLogDirectory(runId)), 'the refused run leaves no folder').to.equal(false);
  });

  it('goes ahead beside a run on another runtime, a run that ended, a later claim and a doctor', () => {
    const elsewhere = join(root, 'other.sock');
    otherRun('first', otherOwner, { endpoint: `unix://${elsewhere}`, claimedAt: Date.now() - 60_000 });
    const ended = { ...currentOwner(), pid: spawnSync('true').pid as number };
    otherRun('second', ended, { endpoint: `unix://${socket}`, claimedAt: Date.now() - 60_000 });
    expect(() => claim(`unix://${socket}`)).not.to.throw();
    removeRunLogs(runId);
    // Of two runs that start together, the one that claimed later stops: here that is the other.
    otherRun('second', otherOwner, { endpoint: `unix://${socket}`, claimedAt: Date.now() + 60_000 });
    expect(() => claim(`unix://${socket}`)).not.to.throw();
    removeRunLogs(runId);
    otherRun('second', otherOwner);
    expect(() => claim(`unix://${socket}`), 'a folder that names no runtime').not.to.throw();
    removeRunLogs(runId);
    otherRun('second', otherOwner, {
      endpoint: `unix://${socket}`,
      claimedAt: Date.now() - 60_000,
      by: 'doctor',
    });
    expect(() => claim(`unix://${socket}`), "a doctor's look at the same runtime").not.to.throw();
    expect(existsSync(join(runLogDirectory(runId), RUN_OWNER_FILE)), 'the run has its folder').to.equal(true);
  });
});
