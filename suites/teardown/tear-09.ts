import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { describeReply } from '../common/replies.js';

export const check = defineCheck({
  id: 'TEAR-09',
  level: 'MUST',
  title: 'RemovePodSandbox on a sandbox with running containers forcibly stops them and removes everything',
  contract:
    'cri-api v0.32.3 api.proto RemovePodSandbox: "If there are any running containers in the sandbox, they must be forcibly terminated and removed"',
  async run(t: CheckContext) {
    const { podId, containerId, podConfig } = await t.cri.runPodWithContainer('tear-09');
    const second = await t.cri.createContainer(podId, t.make.container('second'), podConfig);
    await t.cri.startContainer(second);
    t.step('remove the pod without stopping anything first');
    const reply = await t.cri.tryCall('RemovePodSandbox', { podSandboxId: podId });
    t.expect(
      reply.ok,
      `RemovePodSandbox on a sandbox with two running containers returned ${describeReply(reply)}`,
    );
    const pod = (await t.cri.listPods()).find((p) => p.id === podId);
    t.expect(
      pod === undefined,
      `after RemovePodSandbox, sandbox ${shortId(podId)} is still listed (${pod?.state})`,
    );
    const left = (await t.cri.listContainers()).filter((c) => c.podSandboxId === podId);
    t.expect(
      left.length === 0,
      `after RemovePodSandbox, containers ${left.map((c) => `${c.name}/${c.state}`).join(', ')} of the sandbox are still listed`,
    );
    for (const id of [containerId, second]) {
      // Only NOT_FOUND says the container is gone; another error ends the check in ERROR.
      const state = await t.cri.containerStateOrGone(id);
      t.expect(
        state === 'GONE',
        `after RemovePodSandbox, ContainerStatus(${shortId(id)}) still answers: ${state}`,
      );
    }
  },
});
