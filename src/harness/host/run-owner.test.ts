import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { readProc } from './proc.js';
import {
  currentOwner,
  hostProcessView,
  ownerGone,
  type ProcessView,
  parseOwner,
  type RunOwner,
} from './run-owner.js';

/** A host with these processes (pid -> start time) in namespace 'pid:[1]', and these in other ones. */
function view(
  own: Record<number, string>,
  elsewhere: Record<string, string[]> = {},
  seesAll = true,
): ProcessView {
  return {
    bootId: 'boot-1',
    pidNamespace: 'pid:[1]',
    seesAllProcesses: seesAll,
    startTimeOf: (pid) => own[pid],
    runsIn: (namespace, startTime) => elsewhere[namespace]?.includes(startTime) ?? false,
  };
}

const owner = (o: Partial<RunOwner> = {}): RunOwner => ({
  pid: 42,
  startTime: '1000',
  pidNamespace: 'pid:[1]',
  bootId: 'boot-1',
  ...o,
});

describe("a run's owner process: running or gone", () => {
  it('is running while its pid runs with its start time, and gone once the pid is free or reused', () => {
    expect(ownerGone(owner(), view({ 42: '1000' }))).to.equal(false);
    expect(ownerGone(owner(), view({}))).to.equal(true);
    expect(ownerGone(owner(), view({ 42: '2000' })), 'the pid reused').to.equal(true);
  });

  it('is gone when it ran in an earlier boot, whatever runs under its pid now', () => {
    expect(ownerGone(owner({ bootId: 'boot-0' }), view({ 42: '1000' }))).to.equal(true);
  });

  it('in another pid namespace (a pod), is running while a process with its start time runs there', () => {
    const inPod = owner({ pid: 7, pidNamespace: 'pid:[9]' });
    expect(ownerGone(inPod, view({}, { 'pid:[9]': ['1000'] }))).to.equal(false);
    expect(ownerGone(inPod, view({}, { 'pid:[9]': ['3000'] }))).to.equal(true);
    expect(ownerGone(inPod, view({}))).to.equal(true);
  });

  it('counts as running when this process cannot see the namespace it ran in', () => {
    expect(ownerGone(owner({ pidNamespace: 'pid:[9]' }), view({}, {}, false))).to.equal(false);
  });

  it('on this host: this process runs, and a process that exited is gone', () => {
    const me = currentOwner();
    expect(me.pid).to.equal(process.pid);
    expect(ownerGone(me)).to.equal(false);
    const exited = spawnSync('true');
    expect(exited.pid).to.be.a('number');
    expect(ownerGone({ ...me, pid: exited.pid as number })).to.equal(true);
    expect(hostProcessView().startTimeOf(process.pid)).to.equal(me.startTime);
  });

  it('on this host: a killed process its parent has not reaped yet (a zombie) is gone', async () => {
    // The backgrounded child exits once its parent has been exec'd into a sleep, which never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0.1 & echo $!; exec sleep 30'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const pid = Number(
        await new Promise<string>((resolve) => parent.stdout.once('data', (d) => resolve(String(d)))),
      );
      const deadline = Date.now() + 5_000;
      while (readProc(pid)?.state !== 'Z') {
        expect(Date.now(), `pid ${pid} never became a zombie`).to.be.below(deadline);
        await sleep(10);
      }
      const zombie = { ...currentOwner(), pid, startTime: readProc(pid)?.startTime ?? '' };
      expect(ownerGone(zombie)).to.equal(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('reads back what it wrote, and nothing else', () => {
    expect(parseOwner(JSON.stringify(owner()))).to.deep.equal(owner());
    expect(parseOwner('{"pid": 42}')).to.equal(undefined);
    expect(parseOwner('not json')).to.equal(undefined);
  });
});
