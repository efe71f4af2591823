import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectOneContainer } from '../common/census.js';
import { nriCreateDelay, retryCreateContainerAfterTimeout } from './container-scenarios.js';

export const check = defineCheck({
  id: 'IDEM-06',
  level: 'MUST',
  needs: ['nri', 'stalls-hooks'],
  title:
    'After a timed-out CreateContainer and its retries, exactly one container with its metadata exists in the sandbox (at most one when the retries did not converge)',
  contract:
    'kubelet: retries a timed-out CreateContainer with the same metadata and manages one container per name and attempt in a sandbox; CRI-O issue 4221 (ResourceCache)',
  async run(t: CheckContext) {
    // Counted whether or not the retries converged: retries that cannot reach the one container the
    // runtime built are IDEM-05's failure; more than one container is this check's.
    const done = await retryCreateContainerAfterTimeout(t, 'idem-06', await nriCreateDelay(t));
    const converged = done.containerId !== undefined;
    t.observe('retries converged', converged);
    await expectOneContainer(
      t,
      done.podId,
      done.config.metadata.name,
      `after the retries ${converged ? 'converged' : 'did not converge'} (${done.evidence})`,
      { allowNone: !converged },
    );
  },
});
