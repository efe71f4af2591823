/**
 * The shell wrappers that scripts/containerd-up.sh installs, run as the runtime runs them, with a stand-in
 * for the real runc or bridge plugin and a `sleep` on PATH that records what it was asked to sleep.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { packageRoot } from '../../cri/package-root.js';

const ID = 'c'.repeat(64);

interface Sandbox {
  root: string;
  slept(): string[];
  run(
    wrapper: string,
    args: string[],
    env?: Record<string, string>,
  ): { status: number | null; stdout: string };
}

function sandbox(): Sandbox {
  const root = mkdtempSync(join(tmpdir(), 'cc-wrap-'));
  const bin = join(root, 'bin');
  mkdirSync(bin);
  const script = (path: string, body: string) => {
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
  };
  script(join(bin, 'sleep'), `echo "$1" >>'${root}/slept'`);
  script(join(root, 'real'), `echo '{}'`);
  return {
    root,
    slept: () => readFileSync(join(root, 'slept'), 'utf8').split('\n').filter(Boolean),
    run: (wrapper, args, env = {}) => {
      const r = spawnSync(wrapper, args, {
        env: { PATH: `${bin}:${process.env.PATH ?? ''}`, ...env },
        encoding: 'utf8',
      });
      return { status: r.status, stdout: r.stdout };
    },
  };
}

function install(box: Sandbox, source: string, target: string, placeholder: string): string {
  const text = readFileSync(join(packageRoot(), 'scripts/lib', source), 'utf8');
  writeFileSync(target, text.replace(`@${placeholder}@`, join(box.root, 'real')));
  chmodSync(target, 0o755);
  return target;
}

function claim(control: string, key: string, delayMs: number): string {
  const own = join(control, 'pods', key);
  mkdirSync(own, { recursive: true });
  writeFileSync(join(own, 'delay-ms'), `${delayMs}\n`);
  return own;
}

describe('injector wrappers', () => {
  it('runc: a create of a claimed pod takes its own delay and logs its key; any other takes the shared one', () => {
    const box = sandbox();
    const control = join(box.root, 'slow-runtime');
    mkdirSync(control);
    const runc = install(box, 'runc-slow.sh', join(control, 'runc-slow'), 'REAL_RUNC');
    writeFileSync(join(control, 'delay-ms'), '700\n');
    claim(control, 'cc-idem-01-', 2500);
    claim(control, 'cc-idem-1-', 9000);
    const bundle = (podName: string) => {
      const dir = mkdtempSync(join(box.root, 'bundle-'));
      writeFileSync(
        join(dir, 'config.json'),
        JSON.stringify({ hostname: podName, annotations: { 'io.kubernetes.cri.sandbox-name': podName } }),
      );
      return dir;
    };

    const ours = box.run(runc, ['--root', '/run/x', 'create', '--bundle', bundle('cc-idem-01-a-1f2e'), ID]);
    const other = box.run(runc, ['create', `--bundle=${bundle('cc-name-02-b-9a8b')}`, '--pid-file', 'p', ID]);
    const state = box.run(runc, ['state', ID]);

    expect([ours.status, other.status, state.status]).to.deep.equal([0, 0, 0]);
    expect(box.slept()).to.deep.equal(['2.500', '0.700']);
    const logged = readFileSync(join(control, 'created.log'), 'utf8').split('\n').filter(Boolean);
    expect(logged.map((l) => l.split(' ').slice(1))).to.deep.equal([
      [ID, 'cc-idem-01-'],
      [ID, ''],
    ]);
  });

  it('CNI: an ADD of a claimed pod takes its delay and failure and logs its key, as does its DEL', () => {
    const box = sandbox();
    const control = join(box.root, 'slow-cni');
    mkdirSync(join(box.root, 'cni-bin'));
    mkdirSync(control);
    const bridge = install(box, 'cni-slow.sh', join(box.root, 'cni-bin', 'conform-bridge'), 'REAL_PLUGIN');
    writeFileSync(join(control, 'delay-ms'), '300\n');
    writeFileSync(join(claim(control, 'cc-tear-14-', 1200), 'fail'), '');
    const cni = (command: string, podName: string) =>
      box.run(bridge, [], {
        CNI_COMMAND: command,
        CNI_CONTAINERID: ID,
        CNI_NETNS: '/var/run/netns/cni-1',
        CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=cri-conform;K8S_POD_NAME=${podName};K8S_POD_UID=u`,
      });

    const failed = cni('ADD', 'cc-tear-14-p-77aa');
    const other = cni('ADD', 'cc-tear-09-p-12ab');
    const deleted = cni('DEL', 'cc-tear-14-p-77aa');

    expect(failed.status).to.equal(1);
    expect(failed.stdout).to.include('told to fail');
    expect([other.status, deleted.status]).to.deep.equal([0, 0]);
    expect(box.slept()).to.deep.equal(['1.200', '0.300']);
    expect(readFileSync(join(control, 'added.log'), 'utf8')).to.equal(
      `${ID} /var/run/netns/cni-1 cc-tear-14-\n${ID} /var/run/netns/cni-1 \n`,
    );
    expect(readFileSync(join(control, 'del.log'), 'utf8')).to.equal(`${ID} cc-tear-14-\n`);
  });
});
