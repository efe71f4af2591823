import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import {
  buildReachedCreate,
  expectReused,
  kubeletBackoff,
  retryRunPod,
  slowHandlerDelay,
  timeOutRunPod,
} from './scenarios.js';

/**
 * Timed-out requests sent before the check gives up on one reaching the runtime's create in time. A loaded
 * node may drop a build whose client left before it got there; a fresh attempt usually gets there.
 */
const ATTEMPTS = 3;

export const check = defineCheck({
  id: 'IDEM-03',
  level: 'SHOULD',
  needs: ['slow-runtime'],
  title: 'The retry of a timed-out RunPodSandbox is served the sandbox that the timed-out request built',
  contract:
    'CRI-O issue 4221 (ResourceCache): a sandbox whose request timed out is kept and handed to the identical retry instead of being rebuilt; seen through the slow runtime handler, which logs the pause container id (= sandbox id) of every create',
  clauses: {
    reused:
      'the retry of a timed-out RunPodSandbox is served the sandbox the timed-out request built, and no other is built',
  },
  async run(t: CheckContext) {
    t.step(
      'time out a RunPodSandbox on the slow runtime handler, retry, and compare what was built with what was served',
    );
    // The delay sits in the OCI runtime, and this check registers no NRI plugin: a runtime runs NRI hooks
    // under the request's context, so a plugin on the path could make a caching runtime roll back.
    const slow = t.inject.slowRuntime();
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const before = new Set(await slow.createdIds());
      const timedOut = await timeOutRunPod(t, 'idem-03', slowHandlerDelay(slow));
      // Reuse is judged only once the timed-out request's own build is seen in the runtime's create.
      if ((await buildReachedCreate(t, slow.createdIds, before)) === undefined) {
        t.step(`attempt ${attempt}: the timed-out RunPodSandbox never reached the runtime's create`);
        await t.cleanupNow();
        continue;
      }
      await kubeletBackoff(t, timedOut.first);
      const { podId, evidence } = await retryRunPod(t, timedOut, 'reused');
      const built = (await slow.createdIds()).filter((id) => !before.has(id));
      expectReused(t, built, podId, 'sandboxes', evidence, 'reused');
      return;
    }
    t.require(
      false,
      `in ${ATTEMPTS} attempts the timed-out RunPodSandbox never reached the runtime's create before its retry (the slow runtime handler logged nothing for it), so whether the runtime serves what a timed-out request built could not be tested`,
    );
  },
});
