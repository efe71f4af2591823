import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectOneContainer } from '../common/census.js';
import { createContainerAfterTimeout, nriCreateDelay } from './container-scenarios.js';

export const check = defineCheck({
  id: 'IDEM-06',
  level: 'MUST',
  needs: ['nri'],
  title:
    'After a timed-out CreateContainer converges, exactly one container with its metadata exists in the sandbox',
  contract:
    'kubelet: retries a timed-out CreateContainer with the same metadata and manages one container per name and attempt in a sandbox; CRI-O issue 4221 (ResourceCache)',
  async run(t: CheckContext) {
    const done = await createContainerAfterTimeout(t, 'idem-06', await nriCreateDelay(t));
    await expectOneContainer(
      t,
      done.podId,
      done.config.metadata.name,
      `after the retries converged (${done.evidence})`,
    );
  },
});
