import { type ChildProcess, spawn } from 'node:child_process';
import { expect } from 'chai';
import { idOfCgroup } from './cgroups.js';
import { alive } from './processes.js';
import { instanceProcesses } from './removal.js';

const DIR = `/run/cc-unit-${process.pid}`;

/** A shell whose command line carries `args` (as a shim's or a wrapper's would), with a `sleep` child. */
function fakeProcess(args: string[]): ChildProcess {
  return spawn('/bin/sh', ['-c', 'sleep 30; :', 'fake', ...args], { stdio: 'ignore' });
}

async function untilChildren(parent: ChildProcess): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    if (instanceProcesses(DIR).length >= 4 || !alive(parent.pid ?? 0)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("which processes are a private instance's", () => {
  const started: ChildProcess[] = [];
  afterEach(() => {
    for (const p of started.splice(0)) p.kill('SIGKILL');
  });

  it('takes its shims and wrappers with their children, and nothing that only names its directory', async () => {
    const shim = fakeProcess(['-address', `${DIR}/containerd.sock`]);
    const wrapper = fakeProcess([`${DIR}/slow-runtime/runc-slow`, 'create']);
    const bystander = fakeProcess([`${DIR}/containerd.sock`, `${DIR}/`]);
    started.push(shim, wrapper, bystander);
    await untilChildren(shim);
    const found = instanceProcesses(DIR);
    expect(found).to.include.members([shim.pid, wrapper.pid]);
    expect(found).not.to.include(bystander.pid);
    // Each shell's `sleep` child is taken along with it.
    expect(found.length).to.be.at.least(4);
  });
});

describe("which cgroups are a private instance's", () => {
  const id = 'ab'.repeat(32);
  it('reads the container id in the names containerd, CRI-O and the systemd drivers give cgroups', () => {
    expect(idOfCgroup(id)).to.equal(id);
    expect(idOfCgroup(`crio-${id}`)).to.equal(id);
    expect(idOfCgroup(`crio-conmon-${id}`)).to.equal(id);
    expect(idOfCgroup(`cri-containerd-${id}.scope`)).to.equal(id);
    expect(idOfCgroup('kubepods')).to.equal(undefined);
    expect(idOfCgroup(`${id}0`)).to.equal(undefined);
  });
});
