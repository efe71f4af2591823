import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectReclaimed } from './leaks.js';

export const check = defineCheck({
  id: 'TEAR-11',
  level: 'MUST',
  tags: ['Node'],
  title:
    'After StopPodSandbox and RemovePodSandbox the host holds nothing of the pod: no processes, netns, cgroups, rootfs mounts or shim',
  contract:
    "kubelet PodResourcesAreReclaimed (pkg/kubelet/kubelet_pods.go): a deleted pod's containers, volumes and cgroup are gone; cri-api v0.32.3 api.proto StopPodSandbox/RemovePodSandbox reclaim the sandbox's resources",
  clauses: {
    reclaimed: 'after StopPodSandbox and RemovePodSandbox the host holds nothing of the pod',
  },
  async run(t: CheckContext) {
    const { podId, containerId } = await t.cri.runPodWithContainer('tear-11');
    const snapshot = await t.host.snapshot(podId, [containerId]);
    t.step('StopPodSandbox and RemovePodSandbox, then look at the host');
    await expectReclaimed(t, snapshot, 'after StopPodSandbox and RemovePodSandbox', 'reclaimed');
  },
});
