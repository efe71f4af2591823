import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { createContainerAfterTimeout, nriCreateDelay } from './container-scenarios.js';

export const check = defineCheck({
  id: 'IDEM-05',
  level: 'MUST',
  needs: ['nri'],
  title:
    'A CreateContainer that timed out while the runtime was creating it converges under identical retries, and the container starts',
  contract:
    'kubelet: a CreateContainer that fails (deadline included) is sent again with the same metadata on the next pod sync; cri-api v0.32.3 api.proto StartContainer "starts the container"; CRI-O issue 4221 (ResourceCache)',
  async run(t: CheckContext) {
    // The NRI CreateContainer hook holds the request: the one place inside CreateContainer every NRI
    // runtime passes through (some create the OCI container only at StartContainer).
    const { containerId, evidence } = await createContainerAfterTimeout(
      t,
      'idem-05',
      await nriCreateDelay(t),
    );
    await t.cri.startContainer(containerId);
    const status = await t.cri.containerStatus(containerId);
    t.expect(
      status.state === 'CONTAINER_RUNNING',
      `the converged CreateContainer returned ${shortId(containerId)}, which is ${status.state} after StartContainer (${evidence})`,
    );
  },
});
