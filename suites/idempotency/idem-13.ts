import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectOnePod } from '../common/census.js';
import { DELAY_MS } from '../common/timing.js';
import { retryRunPod } from './scenarios.js';
import { timeOutHeldRunPod } from './slow-handler.js';

export const check = defineCheck({
  id: 'IDEM-13',
  level: 'SHOULD',
  tags: ['Restart'],
  needs: ['creation-delay'],
  title:
    'After a runtime restart with a timed-out sandbox in existence, the runtime is healthy and an identical RunPodSandbox yields exactly one sandbox',
  contract:
    'kubelet: keeps retrying the identical RunPodSandbox across runtime restarts; CRI-O issue 4221 (ResourceCache): what the cache held must not turn into an orphan or a permanent "name is reserved" after a restart',
  clauses: {
    'one-sandbox': 'after the restart an identical RunPodSandbox converges to exactly one sandbox',
  },
  async run(t: CheckContext) {
    t.step('time out a RunPodSandbox, restart the runtime, then retry it');
    // The timed-out build is left to finish: the restart then meets whatever the runtime keeps of it.
    // Without a build of the timed-out request on the runtime, the restart meets nothing and one sandbox
    // after the retries proves nothing: the build must be seen before the restart.
    const timedOut = await timeOutHeldRunPod(t, 'idem-13');
    await t.pause(
      DELAY_MS,
      'let the timed-out build finish, so the runtime holds its result when it restarts',
    );
    const tookMs = await t.restartRuntime();
    t.observe('restart took ms', tookMs);
    const { evidence } = await retryRunPod(t, timedOut, 'one-sandbox');
    await expectOnePod(
      t,
      timedOut.config.metadata.name,
      `after the restart and the retries (${evidence})`,
      'one-sandbox',
    );
  },
});
