import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { describeReply } from '../common/replies.js';

export const check = defineCheck({
  id: 'NAME-03',
  level: 'MUST',
  title: 'After RemovePodSandbox the name is free: an identical RunPodSandbox succeeds at once',
  contract:
    'cri-api v0.32.3 api.proto RemovePodSandbox "removes the sandbox"; kubelet: recreates a pod with the same metadata after removing its sandbox; containerd CRI releases the name reservation on removal',
  clauses: {
    'name-free': 'after RemovePodSandbox an identical RunPodSandbox succeeds at once',
  },
  async run(t: CheckContext) {
    t.step('run, stop and remove a pod, then send its RunPodSandbox again unchanged');
    const config = t.make.pod('name-03');
    const podId = await t.cri.runPod(config);
    await t.cri.stopPod(podId);
    await t.cri.removePod(podId);
    t.step('the identical RunPodSandbox right after the removal');
    const again = await t.cri.tryRunPod(config);
    t.expect(
      again.ok,
      `identical RunPodSandbox right after removing ${shortId(podId)}: ${describeReply(again)}; the removed sandbox kept its name`,
      'name-free',
    );
  },
});
