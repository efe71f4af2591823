import { type CheckContext, defineCheck, describeLeaks, shortId } from '../../src/harness/face.js';
import { DELAY_MS } from '../common/timing.js';
import { nriCreateDelay, timeOutCreateContainer } from './container-scenarios.js';
import {
  type Ending,
  evidence,
  kubeletBackoff,
  kubeletRetry,
  runPodAfterTimeout,
  slowHandlerDelay,
  type TimedOutPod,
} from './scenarios.js';

/**
 * IDEM-05's timeout inside the converged pod. Whether its retries converge is IDEM-05's verdict; here it
 * is recorded, and whatever the runtime built goes into the leak probe.
 */
async function timeOutContainerIn(
  t: CheckContext,
  pod: TimedOutPod & { podId: string },
  ending: Ending,
  trial: number,
) {
  const timedOut = await timeOutCreateContainer(t, 'idem-14', await nriCreateDelay(t), {
    ending,
    podId: pod.podId,
    podConfig: pod.config,
  });
  await kubeletBackoff(t, timedOut.first);
  const outcome = await t.cri.retry('CreateContainer', timedOut.request, {
    ...kubeletRetry(t),
    budgetMs: DELAY_MS,
  });
  t.observe(`trial ${trial} CreateContainer retries`, evidence(timedOut.first, outcome));
  if (outcome.value) await t.cri.startContainer(outcome.value.containerId);
}

export const check = defineCheck({
  id: 'IDEM-14',
  level: 'MUST',
  tags: ['Node'],
  needs: ['slow-runtime'],
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
      if (t.nri.available) await timeOutContainerIn(t, pod, ending, trial);
      const abandoned = (await slow.createdIds()).filter((id) => id !== pod.podId);
      const containerIds = (await t.cri.listContainers({ podId: pod.podId })).map((c) => c.id);
      const snapshot = await t.host.snapshot(pod.podId, [...new Set([...containerIds, ...abandoned])]);
      await t.cri.stopPod(pod.podId);
      await t.cri.removePod(pod.podId);
      const leaks = await t.host.leftovers(snapshot);
      t.expect(
        leaks.length === 0,
        `after ${ending} + retries (${pod.evidence}) and removal of ${shortId(pod.podId)} (abandoned: ${
          abandoned.map(shortId).join(', ') || 'none logged'
        }): ${describeLeaks(leaks)}`,
      );
    });
  },
});
