/**
 * Kubelets that are not a process named `kubelet`, and the kubelet's drop-ins, found through fixture
 * /proc trees: each process's root is a fixture node holding the runtime's socket at /run/rt/rt.sock and
 * the files the process reads (/etc/rancher/..., /var/snap/...).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { fakeProcess } from '../host/proc-fixture.test.helper.js';
import { kubeletProcessesOn } from './kubelet-detect.js';

describe('kubelets inside k3s, RKE2 and MicroK8s, and kubelet drop-ins', () => {
  let node: string;
  let proc: string;
  let server: Server;
  /** The runtime's socket as the test (the node itself) names it. */
  let endpoint: string;
  const file = (path: string, text: string) => {
    mkdirSync(dirname(join(node, path)), { recursive: true });
    writeFileSync(join(node, path), text);
  };
  const found = () => kubeletProcessesOn(endpoint, proc).map((k) => `${k.pid} ${k.kind}: ${k.source}`);

  beforeEach(async () => {
    node = mkdtempSync(join(tmpdir(), 'cc-node-'));
    proc = join(node, 'proc');
    mkdirSync(join(node, 'run', 'rt'), { recursive: true });
    endpoint = `unix://${join(node, 'run/rt/rt.sock')}`;
    server = createServer();
    await new Promise<void>((resolve) => server.listen(join(node, 'run/rt/rt.sock'), resolve));
  });
  afterEach(() => {
    server.close();
    rmSync(node, { recursive: true, force: true });
  });

  it('k3s server and agent: their own flag, and nothing for other k3s subcommands', () => {
    fakeProcess(
      proc,
      30,
      ['/usr/local/bin/k3s', 'server', '--container-runtime-endpoint', '/run/rt/rt.sock'],
      {
        root: node,
      },
    );
    fakeProcess(
      proc,
      31,
      ['k3s', 'agent', '--kubelet-arg=container-runtime-endpoint=unix:///run/rt/rt.sock'],
      {
        root: node,
      },
    );
    fakeProcess(proc, 32, ['k3s', 'kubectl', '--container-runtime-endpoint', '/run/rt/rt.sock'], {
      root: node,
    });
    expect(found()).to.deep.equal([
      '30 k3s: k3s --container-runtime-endpoint or --kubelet-arg',
      '31 k3s: k3s --container-runtime-endpoint or --kubelet-arg',
    ]);
  });

  it('k3s: its config file and config.yaml.d drop-ins, the last drop-in winning', () => {
    file('/etc/rancher/k3s/config.yaml', 'container-runtime-endpoint: /elsewhere.sock\n');
    file(
      '/etc/rancher/k3s/config.yaml.d/50-rt.yaml',
      'kubelet-arg:\n  - container-runtime-endpoint=/run/rt/rt.sock\n',
    );
    fakeProcess(proc, 40, ['k3s', 'agent'], { root: node });
    expect(found()).to.deep.equal(['40 k3s: k3s config /etc/rancher/k3s/config.yaml.d/50-rt.yaml']);
  });

  it('k3s and RKE2: the embedded containerd by default, RKE2 with its own config file', async () => {
    fakeProcess(proc, 50, ['/usr/local/bin/k3s', 'server'], { root: node });
    fakeProcess(proc, 51, ['rke2', 'agent'], { root: node });
    fakeProcess(proc, 52, ['rke2', 'server', '-c', '/etc/rke2.yaml'], { root: node });
    file('/etc/rke2.yaml', 'container-runtime-endpoint: unix:///run/rt/rt.sock\n');
    expect(found()).to.deep.equal(['52 rke2: rke2 config /etc/rke2.yaml']);
    mkdirSync(join(node, 'run/k3s/containerd'), { recursive: true });
    const embedded = createServer();
    await new Promise<void>((resolve) =>
      embedded.listen(join(node, 'run/k3s/containerd/containerd.sock'), resolve),
    );
    try {
      endpoint = `unix://${join(node, 'run/k3s/containerd/containerd.sock')}`;
      expect(found()).to.deep.equal(['50 k3s: the k3s default', '51 rke2: the rke2 default']);
    } finally {
      embedded.close();
    }
  });

  it('MicroK8s kubelite: the flag in its kubelet args file, with its own $SNAP_COMMON', () => {
    file(
      '/var/snap/microk8s/7000/args/kubelet',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the args file as MicroK8s writes it
      '--kubeconfig=${SNAP_DATA}/credentials/kubelet.config\n--container-runtime-endpoint=${SNAP_COMMON}/rt.sock\n',
    );
    mkdirSync(join(node, 'var/snap/microk8s/common'), { recursive: true });
    const environ = { SNAP_DATA: '/var/snap/microk8s/7000', SNAP_COMMON: '/run/rt' };
    fakeProcess(
      proc,
      60,
      ['/snap/microk8s/7000/kubelite', '--kubelet-args-file=/var/snap/microk8s/7000/args/kubelet'],
      {
        root: node,
        environ,
      },
    );
    fakeProcess(proc, 61, ['/snap/microk8s/7000/kubelite'], { root: node, environ });
    expect(found()).to.deep.equal([
      '60 kubelite: --container-runtime-endpoint in /var/snap/microk8s/7000/args/kubelet',
      '61 kubelite: --container-runtime-endpoint in /var/snap/microk8s/7000/args/kubelet',
    ]);
  });

  it('a kubelet’s --config-dir drop-ins override its --config file, in name order; its flag overrides both', () => {
    file('/etc/kubernetes/kubelet.yaml', 'containerRuntimeEndpoint: unix:///elsewhere.sock\n');
    file('/etc/kubernetes/kubelet.conf.d/10-rt.conf', 'containerRuntimeEndpoint: unix:///run/rt/rt.sock\n');
    file('/etc/kubernetes/kubelet.conf.d/20-unrelated.conf', 'maxPods: 50\n');
    file(
      '/etc/kubernetes/kubelet.conf.d/99-ignored.yaml',
      'containerRuntimeEndpoint: unix:///elsewhere.sock\n',
    );
    const config = [
      '--config',
      '/etc/kubernetes/kubelet.yaml',
      '--config-dir=/etc/kubernetes/kubelet.conf.d',
    ];
    fakeProcess(proc, 70, ['/usr/bin/kubelet', ...config], { root: node });
    fakeProcess(proc, 71, ['/usr/bin/kubelet', ...config, '--container-runtime-endpoint=/elsewhere.sock'], {
      root: node,
    });
    expect(found()).to.deep.equal([
      '70 kubelet: containerRuntimeEndpoint of --config-dir drop-in 10-rt.conf',
    ]);
  });
});
