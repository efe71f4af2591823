import { defineCheck } from '../../src/harness/check.js';
import type { CheckContext } from '../../src/harness/context.js';
import { describeLeaks } from '../../src/harness/host-probe.js';
import { short } from './census.js';
import {
  createContainerAfterTimeout,
  type Ending,
  nriCreateDelay,
  runPodAfterTimeout,
  slowHandlerDelay,
} from './scenarios.js';

export const check = defineCheck({
  id: 'IDEM-14',
  level: 'MUST',
  tags: ['Node'],
  needs: ['exclusive'],
  trials: true,
  title:
    'Once a timed-out or cancelled request has converged and its pod is removed, the host holds nothing of the abandoned attempt',
  contract:
    'kubelet PodResourcesAreReclaimed: after removal no process, cgroup or netns of the pod may remain; cri-api v0.32.3 api.proto RemovePodSandbox "removes the sandbox"; checks.md "Leaks that the CRI cannot see count"',
  async run(t: CheckContext) {
    const slow = t.inject.slowRuntime();
    await t.trials(async (trial) => {
      const ending: Ending = trial % 2 === 1 ? 'deadline' : 'cancel';
      const pod = await runPodAfterTimeout(t, 'idem-14', slowHandlerDelay(slow), ending);
      const abandoned = (await slow.createdIds()).filter((id) => id !== pod.podId);
      const containerIds: string[] = [];
      if (t.nri.available) {
        const { containerId } = await createContainerAfterTimeout(t, 'idem-14', await nriCreateDelay(t), {
          ending,
          podId: pod.podId,
          podConfig: pod.config,
        });
        await t.cri.startContainer(containerId);
        containerIds.push(containerId);
      }
      const snapshot = await t.host.snapshot(pod.podId, [...containerIds, ...abandoned]);
      await t.cri.stopPod(pod.podId);
      await t.cri.removePod(pod.podId);
      const leaks = await t.host.leftovers(snapshot);
      t.expect(
        leaks.length === 0,
        `after ${ending} + retries (${pod.evidence}) and removal of ${short(pod.podId)} (abandoned: ${
          abandoned.map(short).join(', ') || 'none logged'
        }): ${describeLeaks(leaks)}`,
      );
    });
  },
});
