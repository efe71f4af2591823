/**
 * A runtime that cannot run any pod: the run says so first, with the runtime's own error, and stops (exit
 * 2), instead of blaming the first injector whose proof needed a pod.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status as Status } from '@grpc/grpc-js';
import { expect } from 'chai';
import { type FakeRuntime, grpcError, startFakeRuntime } from '../harness/check/fake-runtime.test.helper.js';
import type { Io } from './io.js';
import { main } from './main.js';

const RUNC_ERROR =
  'failed to create shim task: OCI runtime create failed: runc create failed: mount /: invalid argument';

describe('run on a runtime that cannot run a pod', () => {
  let fake: FakeRuntime;
  const dir = mkdtempSync(join(tmpdir(), 'cc-no-pod-'));
  before(async () => {
    fake = await startFakeRuntime();
    fake.override('RunPodSandbox', () => {
      throw grpcError(Status.UNKNOWN, RUNC_ERROR);
    });
  });
  after(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function ioWith(env: Record<string, string>, sink: { text: string }): Io {
    const write = (t: string) => {
      sink.text += t;
    };
    return {
      out: write,
      err: write,
      isTTY: false,
      env: {
        CONTAINER_RUNTIME_ENDPOINT: fake.endpoint,
        CRI_CONFORM_NRI_SOCKET: join(dir, 'no-nri.sock'),
        ...env,
      },
      signal: new AbortController().signal,
    };
  }
  const argv = ['node', 'cri-conform', 'run', '--config', '/dev/null', '--node-probes', 'off'];
  const NO_POD =
    /^cri-conform: the runtime cannot run a pod: RunPodSandbox with the default handler failed: RunPodSandbox: UNKNOWN \(2\) after \d+\/\d+ ms: (.*) \(the runtime's log says more; no check can run until a plain pod starts\)$/;

  it('says first that the runtime cannot run a pod, with its error, and exits 2', async () => {
    writeFileSync(join(dir, 'created.log'), '');
    const output = { text: '' };
    const io = ioWith(
      { CRI_CONFORM_SLOW_RUNTIME_HANDLER: 'conform-slow', CRI_CONFORM_SLOW_RUNTIME_DIR: dir },
      output,
    );
    const code = await main([...argv, '--focus', '^IDEM-01 ', '--report-dir', join(dir, 'reports')], io);
    expect(code, output.text).to.equal(2);
    const lines = output.text.trim().split('\n');
    expect(lines[0]).to.match(NO_POD);
    expect(lines[0]).to.include(RUNC_ERROR);
    expect(lines[1]).to.match(/^reports: /);
    expect(output.text).to.not.include('does not work');
  });

  it('says it too where no injector is configured, before any check errs on it', async () => {
    const output = { text: '' };
    const code = await main(
      [...argv, '--focus', '^NAME-01 ', '--report-dir', join(dir, 'reports-plain')],
      ioWith({}, output),
    );
    expect(code, output.text).to.equal(2);
    const lines = output.text.trim().split('\n');
    expect(lines[0]).to.match(NO_POD);
    expect(lines[0]).to.include(RUNC_ERROR);
  });
});
