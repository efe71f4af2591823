import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { expectOnePod } from '../common/census.js';
import { pathFor, runPodAfterTimeout } from './scenarios.js';

export const check = defineCheck({
  id: 'IDEM-12',
  level: 'MUST',
  needs: ['exclusive'],
  trials: true,
  title:
    'A RunPodSandbox cancelled by the client while the runtime builds it leaves the same state as a timeout: identical retries converge to one READY sandbox',
  contract:
    'kubelet: a RunPodSandbox whose context is cancelled (pod deleted, kubelet restarting) is sent again with the same metadata; gRPC delivers a client cancel to the runtime as a cancelled request context, like an expired deadline; CRI-O issue 4221 (ResourceCache)',
  async run(t: CheckContext) {
    // Each configured path a cancel can land on (runtime create, network setup), spread over the trials.
    const delays = t.inject.creationDelays();
    await t.trials(async (trial) => {
      const delay = pathFor(delays, trial);
      const { config, podId, evidence } = await runPodAfterTimeout(t, 'idem-12', delay, 'cancel');
      await expectOnePod(
        t,
        config.metadata.name,
        `after a cancelled RunPodSandbox and its retries (${delay.name}; ${evidence})`,
      );
      const status = await t.cri.podStatus(podId);
      t.expect(
        status.state === 'SANDBOX_READY',
        `the retry returned ${shortId(podId)}, which is ${status.state} (${delay.name}; ${evidence})`,
      );
    });
  },
});
