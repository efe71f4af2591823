import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import {
  expectReused,
  kubeletBackoff,
  retryRunPod,
  slowHandlerDelay,
  timedOutId,
  timeOutRunPod,
} from './scenarios.js';

export const check = defineCheck({
  id: 'IDEM-03',
  level: 'SHOULD',
  needs: ['slow-runtime'],
  title: 'The retry of a timed-out RunPodSandbox is served the sandbox that the timed-out request built',
  contract:
    'CRI-O issue 4221 (ResourceCache): a sandbox whose request timed out is kept and handed to the identical retry instead of being rebuilt; seen through the slow runtime handler, which logs the pause container id (= sandbox id) of every create',
  async run(t: CheckContext) {
    t.step(
      'time out a RunPodSandbox on the slow runtime handler, retry, and compare what was built with what was served',
    );
    // The delay sits in the OCI runtime, and this check registers no NRI plugin: a runtime runs NRI hooks
    // under the request's context, so a plugin on the path could make a caching runtime roll back.
    const slow = t.inject.slowRuntime();
    const timedOut = await timeOutRunPod(t, 'idem-03', slowHandlerDelay(slow));
    // What the timed-out request built is known before the retry: had it never reached the handler (its
    // deadline ran out in an earlier step), the retry's build would be the only one logged and pass for it.
    await timedOutId(t, slow, timedOut.first);
    await kubeletBackoff(t, timedOut.first);
    const { podId, evidence } = await retryRunPod(t, timedOut);
    expectReused(t, await slow.createdIds(), podId, 'sandboxes', evidence);
  },
});
