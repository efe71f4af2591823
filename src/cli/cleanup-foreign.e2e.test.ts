/**
 * `cleanup` on real containerd never touches a pod that only carries cri-conform's label: the kubelet
 * copies a Kubernetes pod's labels onto its sandbox, so a workload `payments/api-7d9` labelled
 * `cri-conform.io/run=x` is someone else's, with its running container. Plain `cleanup` and
 * `cleanup --isolated` (which sweeps the node's own runtime after the private instances) both leave it.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { CriClient } from '../cri/client.js';
import { RUN_LABEL } from '../harness/core/labels.js';
import { describeSkipped } from '../skip-reason.test.helper.js';
import { NO_RUNTIME_REASON, runCli, runtimesUnderTest } from './e2e-env.test.helper.js';

if (runtimesUnderTest().length === 0)
  describeSkipped('cleanup beside a labelled foreign pod', NO_RUNTIME_REASON);
for (const runtime of runtimesUnderTest()) {
  describe(`cleanup beside a labelled foreign pod on ${runtime.name}`, function () {
    this.timeout(3 * 60_000);
    const endpoint = runtime.env.CONTAINER_RUNTIME_ENDPOINT ?? '';
    let client: CriClient;
    let podId = '';
    let containerId = '';

    before(async () => {
      client = await CriClient.connect({ runtimeEndpoint: endpoint });
      const config = {
        metadata: { name: 'api-7d9', namespace: 'payments', uid: randomUUID(), attempt: 0 },
        labels: { [RUN_LABEL]: 'x', app: 'api' },
        annotations: {},
        hostname: 'api-7d9',
      };
      ({ podSandboxId: podId } = await client.call('RunPodSandbox', { config, runtimeHandler: '' }));
      const image = runtime.env.CRI_CONFORM_TEST_IMAGE ?? '';
      ({ containerId } = await client.call('CreateContainer', {
        podSandboxId: podId,
        config: {
          metadata: { name: 'api', attempt: 0 },
          image: { image },
          command: ['sleep', '3600'],
          labels: { [RUN_LABEL]: 'x' },
          annotations: {},
        },
        sandboxConfig: config,
      }));
      await client.call('StartContainer', { containerId });
    });
    after(async () => {
      if (podId !== '') {
        await client.call('StopPodSandbox', { podSandboxId: podId }).catch(() => undefined);
        await client.call('RemovePodSandbox', { podSandboxId: podId }).catch(() => undefined);
      }
      client?.close();
    });

    for (const flags of [[], ['--isolated']]) {
      it(`leaves it READY with its container running: cleanup ${flags.join(' ')}`, async () => {
        const cleanup = await runCli(['cleanup', ...flags, '-r', endpoint], runtime.env);
        expect(cleanup.code, cleanup.stdout + cleanup.stderr).to.equal(0);
        expect(cleanup.stdout).to.include(`left alone pod payments/api-7d9 (${podId})`);
        const { status: pod } = await client.call('PodSandboxStatus', {
          podSandboxId: podId,
          verbose: false,
        });
        expect(pod?.state).to.equal('SANDBOX_READY');
        const { status } = await client.call('ContainerStatus', { containerId, verbose: false });
        expect(status?.state).to.equal('CONTAINER_RUNNING');
      });
    }
  });
}
