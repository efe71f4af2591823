import { defineCheck } from '../../src/harness/check.js';
import type { CheckContext } from '../../src/harness/context.js';
import { containerReply, observeReply, podReply } from './reservation.js';

export const check = defineCheck({
  id: 'NAME-08',
  level: 'OBSERVE',
  title: 'Records the reservation error text and gRPC code, and whether the message names the real holder',
  contract:
    'containerd CRI: "failed to reserve sandbox name ... name ... is reserved for <id>" (and the container equivalent); CRI-O issue 4221: the kubelet logs this text, so operators read the holder id from it',
  async run(t: CheckContext) {
    t.step('send an identical RunPodSandbox and CreateContainer after the first ones succeeded');
    const podConfig = t.make.pod('name-08');
    const podId = await t.cri.runPod(podConfig);
    const pod = podReply(
      await t.cri.tryCall('RunPodSandbox', { config: podConfig, runtimeHandler: t.settings.runtimeHandler }),
    );
    observeReply(t, 'RunPodSandbox', pod, podId);

    const config = t.make.container('workload');
    const containerId = await t.cri.createContainer(podId, config, podConfig);
    const request = { podSandboxId: podId, config, sandboxConfig: podConfig };
    observeReply(
      t,
      'CreateContainer',
      containerReply(await t.cri.tryCall('CreateContainer', request)),
      containerId,
    );
  },
});
