import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { pathFor, runPodAfterTimeout } from './scenarios.js';

export const check = defineCheck({
  id: 'IDEM-01',
  level: 'MUST',
  needs: ['creation-delay'],
  trials: {
    scale: 2,
    why: '--trials on each creation delay a timeout can land on (runtime create, network setup), taken in turns; where only one is configured it gets them all',
  },
  title:
    'A RunPodSandbox that timed out while the runtime was building it converges under identical kubelet-like retries, and the sandbox returned is READY',
  contract:
    'kubelet: a RunPodSandbox that fails (deadline included) is sent again with the same metadata on the next pod sync; cri-api v0.32.3 api.proto RunPodSandbox "Runtimes must ensure the sandbox is in the ready state on success"; CRI-O issue 4221 (ResourceCache)',
  clauses: {
    converges: 'identical kubelet-like retries of a timed-out RunPodSandbox converge',
    ready: 'the sandbox the converged RunPodSandbox returns is READY',
  },
  async run(t: CheckContext) {
    // Each configured path a timeout can land on (runtime create, network setup), spread over the trials.
    const delays = t.inject.creationDelays();
    await t.trials(async (trial) => {
      const delay = pathFor(delays, trial);
      await t.path(delay.name, async () => {
        const { podId, evidence } = await runPodAfterTimeout(t, 'idem-01', delay, 'converges');
        const state = await t.cri.podStateOrGone(podId);
        t.expect(
          state === 'SANDBOX_READY',
          `the converged RunPodSandbox returned ${shortId(podId)}, which is ${state} (${delay.name}; ${evidence})`,
          'ready',
        );
      });
    });
  },
});
