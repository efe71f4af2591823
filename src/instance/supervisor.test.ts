/**
 * The supervisor against fake instances: a directory with an instance.json and nothing on the host, so
 * that its removal is only the directory's. The "run" is a child process that records itself as the
 * instance's owner and starts the supervisor, as startPrivateInstance does.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { selfAsOwner, writeInstanceFile } from './instance-file.js';
import { alive } from './processes.js';

const HERE = dirname(fileURLToPath(import.meta.url));

/** A fake run: records itself as the owner of the instance in `dir`, starts its supervisor, then waits. */
function fakeRun(dir: string, then: 'wait' | 'release'): ChildProcess {
  const script = `
    const { selfAsOwner, writeInstanceFile } = await import(${JSON.stringify(join(HERE, 'instance-file.js'))});
    const { startSupervisor } = await import(${JSON.stringify(join(HERE, 'supervisor.js'))});
    const dir = ${JSON.stringify(dir)};
    writeInstanceFile(dir, { id: 'fake', target: '/nowhere.sock', owner: selfAsOwner(), binary: '/bin/true',
      path: '/bin', runcBinary: '/bin/true', network: { number: 0, bridge: '', subnet: '', name: '' } });
    const supervisor = startSupervisor(dir);
    process.stdout.write(String(supervisor.process?.pid) + '\\n');
    if (${JSON.stringify(then)} === 'release') supervisor.release();
    else setInterval(() => {}, 1000);
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

async function supervisorPid(run: ChildProcess): Promise<number> {
  for await (const line of run.stdout ?? []) return Number(String(line).trim());
  throw new Error('the fake run printed no supervisor pid');
}

async function until(what: string, done: () => boolean, withinMs = 20_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the private instance’s supervisor', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-super-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('removes the instance once its run is killed with SIGKILL, and then exits', async () => {
    const run = fakeRun(dir, 'wait');
    const supervisor = await supervisorPid(run);
    expect(alive(supervisor)).to.equal(true);
    run.kill('SIGKILL');
    await until('the instance removed', () => !existsSync(dir));
    await until('the supervisor gone', () => !alive(supervisor));
  });

  it('exits without acting when the run released it after removing the instance itself', async () => {
    const run = fakeRun(dir, 'release');
    const supervisor = await supervisorPid(run);
    await until('the supervisor gone', () => !alive(supervisor));
    expect(existsSync(join(dir, 'instance.json'))).to.equal(true);
  });

  it('never acts on a run that still runs, even when the pipe from it closes', async () => {
    // This process is the run here: it holds the pipe, and closes it without a word.
    writeInstanceFile(dir, {
      id: 'fake',
      target: '/nowhere.sock',
      owner: selfAsOwner(),
      binary: '/bin/true',
      path: '/bin',
      runcBinary: '/bin/true',
      network: { number: 0, bridge: '', subnet: '', name: '' },
    });
    const supervisor = spawn(process.execPath, [join(HERE, 'supervisor-main.js'), dir, '300'], {
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let log = '';
    supervisor.stderr?.on('data', (d: Buffer) => {
      log += String(d);
    });
    supervisor.stdin?.end();
    const code = await new Promise((resolve) => supervisor.on('exit', resolve));
    expect(code, log).to.equal(0);
    expect(log).to.match(/the run still runs: leaving its instance to it/);
    expect(existsSync(join(dir, 'instance.json'))).to.equal(true);
    expect(readFileSync(join(dir, 'instance.json'), 'utf8')).to.not.include('leftovers');
  });
});
