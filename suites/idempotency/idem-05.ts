import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { createContainerAfterTimeout, nriCreateDelay } from './container-scenarios.js';

export const check = defineCheck({
  id: 'IDEM-05',
  level: 'MUST',
  needs: ['nri', 'stalls-hooks'],
  // Whether the runtime's code sees the expired deadline as DeadlineExceeded or as Canceled can be decided
  // by its gRPC server's own timers: a runtime that mishandles only one of them fails in a minority of
  // attempts, which --trials (20 by default) sees down to about 15% of them.
  trials: true,
  title:
    'A CreateContainer that timed out while the runtime was creating it converges under identical retries, and the container starts',
  contract:
    'kubelet: a CreateContainer that fails (deadline included) is sent again with the same metadata on the next pod sync; cri-api v0.32.3 api.proto StartContainer "starts the container"; CRI-O issue 4221 (ResourceCache)',
  async run(t: CheckContext) {
    // The NRI CreateContainer hook holds the request: the one place inside CreateContainer every NRI
    // runtime passes through (some create the OCI container only at StartContainer).
    await t.trials(async () => {
      // A fresh plugin each trial: the cleanup between trials disconnects the check's plugins.
      const { containerId, evidence } = await createContainerAfterTimeout(
        t,
        'idem-05',
        await nriCreateDelay(t),
      );
      await t.expectOk(
        `StartContainer of the converged container ${shortId(containerId)} (${evidence})`,
        t.cri.startContainer(containerId),
      );
      const state = await t.cri.containerStateOrGone(containerId);
      t.expect(
        state === 'CONTAINER_RUNNING',
        `the converged CreateContainer returned ${shortId(containerId)}, which is ${state} after StartContainer (${evidence})`,
      );
    });
  },
});
