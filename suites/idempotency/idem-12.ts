import { type CheckContext, defineCheck, type SlowRuntime, shortId } from '../../src/harness/face.js';
import { expectOneContainer, expectOnePod } from '../common/census.js';
import {
  containerVariant,
  createContainerAfterTimeout,
  slowHandlerCreateDelay,
  variantNotRun,
} from './container-scenarios.js';
import { pathFor, runPodAfterTimeout, SIDE_BY_SIDE_WITH_HOLDS } from './scenarios.js';

/** The container variant: a CreateContainer cancelled mid-create, on the slow runtime handler. */
async function cancelContainer(t: CheckContext, slow: SlowRuntime): Promise<void> {
  t.step('container variant: cancel a CreateContainer while the slow runtime handler creates it');
  const done = await containerVariant(t, (notHeld) =>
    createContainerAfterTimeout(t, 'idem-12-ctr', slowHandlerCreateDelay(slow), 'converges', {
      ending: 'cancel',
      notHeld,
    }),
  );
  if ('notRun' in done) return variantNotRun(t, done.notRun);
  await expectOneContainer(
    t,
    done.podId,
    done.config.metadata.name,
    `after a cancelled CreateContainer and its retries (${done.evidence})`,
    'one-object',
  );
}

export const check = defineCheck({
  id: 'IDEM-12',
  level: 'MUST',
  needs: ['creation-delay'],
  uses: ['slow-runtime'],
  trials: {
    scale: 2,
    why: '--trials on each creation delay a cancel can land on (runtime create, network setup), taken in turns; where only one is configured it gets them all',
  },
  besideHeldHooks: SIDE_BY_SIDE_WITH_HOLDS,
  title:
    'A RunPodSandbox (CreateContainer) cancelled by the client while the runtime builds it leaves the same state as a timeout: identical retries converge to one READY sandbox (one container)',
  contract:
    'kubelet: a RunPodSandbox whose context is cancelled (pod deleted, kubelet restarting) is sent again with the same metadata; gRPC delivers a client cancel to the runtime as a cancelled request context, like an expired deadline; CRI-O issue 4221 (ResourceCache)',
  clauses: {
    converges: 'identical retries of a cancelled RunPodSandbox (CreateContainer) converge',
    'one-object': 'they leave exactly one sandbox (container) with the metadata',
    ready: 'the sandbox the retry returns is READY',
  },
  async run(t: CheckContext) {
    // Each configured path a cancel can land on (runtime create, network setup), spread over the trials.
    const delays = t.inject.creationDelays();
    const slow = t.inject.offers('slow-runtime') === undefined ? t.inject.slowRuntime() : undefined;
    await t.trials(async (trial) => {
      const delay = pathFor(delays, trial);
      await t.path(delay.name, async () => {
        const { config, podId, evidence } = await runPodAfterTimeout(
          t,
          'idem-12',
          delay,
          'converges',
          'cancel',
        );
        await expectOnePod(
          t,
          config.metadata.name,
          `after a cancelled RunPodSandbox and its retries (${delay.name}; ${evidence})`,
          'one-object',
        );
        const state = await t.cri.podStateOrGone(podId);
        t.expect(
          state === 'SANDBOX_READY',
          `the retry returned ${shortId(podId)}, which is ${state} (${delay.name}; ${evidence})`,
          'ready',
        );
        if (slow) await cancelContainer(t, slow);
      });
    });
  },
});
