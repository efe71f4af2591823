import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { expectOnePod } from '../common/census.js';
import { runPodAfterTimeout } from './scenarios.js';

export const check = defineCheck({
  id: 'IDEM-12',
  level: 'MUST',
  needs: ['creation-delay'],
  trials: true,
  title:
    'A RunPodSandbox cancelled by the client while the runtime builds it leaves the same state as a timeout: identical retries converge to one READY sandbox',
  contract:
    'kubelet: a RunPodSandbox whose context is cancelled (pod deleted, kubelet restarting) is sent again with the same metadata; gRPC delivers a client cancel to the runtime as a cancelled request context, like an expired deadline; CRI-O issue 4221 (ResourceCache)',
  async run(t: CheckContext) {
    const delay = t.inject.creationDelay();
    await t.trials(async () => {
      const { config, podId, evidence } = await runPodAfterTimeout(t, 'idem-12', delay, 'cancel');
      await expectOnePod(
        t,
        config.metadata.name,
        `after a cancelled RunPodSandbox and its retries (${evidence})`,
      );
      const state = await t.cri.podStateOrGone(podId);
      t.expect(
        state === 'SANDBOX_READY',
        `the retry returned ${shortId(podId)}, which is ${state} (${evidence})`,
      );
    });
  },
});
