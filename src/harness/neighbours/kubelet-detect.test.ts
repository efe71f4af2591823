import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type FakeRuntime, startFakeRuntime } from '../check/fake-runtime.test.helper.js';
import { RUN_LABEL } from '../core/labels.js';
import { fakeProcess as fakeProcessIn } from '../host/proc-fixture.test.helper.js';
import { detectKubelet, kubeletProcessesOn } from './kubelet-detect.js';
import { kubeletEndpoint } from './kubelet-endpoints.js';

describe('kubelet detection', () => {
  let dir: string;
  let proc: string;
  let socket: string;
  let server: Server;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kd-'));
    proc = join(dir, 'proc');
    socket = join(dir, 'run', 'cri.sock');
    mkdirSync(join(dir, 'run'));
    server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    symlinkSync(socket, join(dir, 'link.sock'));
  });
  after(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => rmSync(proc, { recursive: true, force: true }));

  /** A /proc entry whose root is the real root and whose cwd is `cwd`. */
  const fakeProcess = (pid: number, argv: string[], cwd = dir) =>
    fakeProcessIn(proc, pid, argv, { root: '/', cwd });

  it('finds a kubelet whose flag names the same socket, through unix://, a symlink or a relative path', () => {
    fakeProcess(10, ['/usr/bin/kubelet', `--container-runtime-endpoint=unix://${join(dir, 'link.sock')}`]);
    fakeProcess(11, ['kubelet', '--container-runtime-endpoint', 'run/cri.sock']);
    fakeProcess(12, ['/usr/bin/kubelet', '--container-runtime-endpoint=unix:///elsewhere.sock']);
    fakeProcess(13, ['/usr/bin/not-kubelet', `--container-runtime-endpoint=${socket}`]);
    const found = kubeletProcessesOn(`unix://${socket}`, proc);
    expect(found.map((k) => k.pid).sort()).to.deep.equal([10, 11]);
  });

  it('reads the endpoint from the --config file when no flag names it, relative to the kubelet’s cwd', () => {
    writeFileSync(
      join(dir, 'kubelet.yaml'),
      `kind: KubeletConfiguration\ncontainerRuntimeEndpoint: unix://${socket}\n`,
    );
    fakeProcess(20, ['/usr/bin/kubelet', '--config', 'kubelet.yaml']);
    expect(kubeletProcessesOn(socket, proc)).to.deep.equal([
      {
        pid: 20,
        kind: 'kubelet',
        endpoint: `unix://${socket}`,
        source: 'containerRuntimeEndpoint of --config',
      },
    ]);
  });

  it('lets the flag win over the config file, and falls back to the kubelet’s default', () => {
    const files = {
      read: () => 'containerRuntimeEndpoint: unix:///from-file.sock\n',
      list: () => [],
      environ: {},
    };
    expect(
      kubeletEndpoint(['kubelet', '--config=c.yaml', '--container-runtime-endpoint=/a.sock'], files),
    ).to.deep.include({ endpoint: '/a.sock' });
    expect(kubeletEndpoint(['kubelet'], files)).to.deep.equal({
      endpoint: 'unix:///run/containerd/containerd.sock',
      source: 'the default',
    });
  });

  describe('READY pods of a kubelet (fake CRI)', () => {
    let fake: FakeRuntime;
    before(async () => {
      fake = await startFakeRuntime();
    });
    after(() => fake.close());

    it('counts READY sandboxes with a kubelet pod UID that are not cri-conform’s, and only those', async () => {
      const pod = (
        name: string,
        labels: Record<string, string>,
        state = 'SANDBOX_READY',
        namespace = 'kube-system',
      ) => fake.publish({ metadata: { name, attempt: 0, uid: name, namespace }, labels, state });
      pod('cc-ours', { 'io.kubernetes.pod.uid': 'ours', [RUN_LABEL]: 'r1' }, 'SANDBOX_READY', 'cri-conform');
      pod('stopped', { 'io.kubernetes.pod.uid': 'stopped' }, 'SANDBOX_NOTREADY');
      pod('no-uid-label', {});
      expect((await detectKubelet(fake.client, fake.endpoint, proc)).signs).to.deep.equal([]);
      pod('coredns', { 'io.kubernetes.pod.uid': 'coredns' });
      expect((await detectKubelet(fake.client, fake.endpoint, proc)).signs).to.deep.equal([
        '1 READY pod of a kubelet, not of cri-conform (kube-system/coredns)',
      ]);
      // The kubelet copies a Kubernetes pod's labels onto its sandbox: the label alone makes no pod ours.
      pod('api-7d9', { 'io.kubernetes.pod.uid': 'api', [RUN_LABEL]: 'x' }, 'SANDBOX_READY', 'payments');
      expect((await detectKubelet(fake.client, fake.endpoint, proc)).signs).to.deep.equal([
        '2 READY pods of a kubelet, not of cri-conform (kube-system/coredns, payments/api-7d9)',
      ]);
    });
  });
});
