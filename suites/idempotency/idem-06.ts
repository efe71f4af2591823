import { type CheckContext, defineCheck, describeAttempts, shortId } from '../../src/harness/face.js';
import { expectOneContainer } from '../common/census.js';
import { nriCreateDelay, retryCreateContainerAfterTimeout } from './container-scenarios.js';
import { kubeletRetry } from './kubelet-retry.js';

export const check = defineCheck({
  id: 'IDEM-06',
  level: 'MUST',
  needs: ['nri', 'stalls-hooks', 'holds-in-lane'],
  title:
    'After a timed-out CreateContainer and its retries, exactly one container with its metadata exists in the sandbox; where the retries did not converge and none exists, the name is free again',
  contract:
    'kubelet: retries a timed-out CreateContainer with the same metadata and manages one container per name and attempt in a sandbox; CRI-O issue 4221 (ResourceCache)',
  clauses: {
    'one-container':
      'after a timed-out CreateContainer and its retries exactly one container with its metadata exists, or none and the name is free',
  },
  async run(t: CheckContext) {
    // Counted whether or not the retries converged: retries that cannot reach the one container the
    // runtime built are IDEM-05's failure; more than one container is this check's.
    const done = await retryCreateContainerAfterTimeout(t, 'idem-06', await nriCreateDelay(t));
    const converged = done.containerId !== undefined;
    t.observe('retries converged', converged);
    const when = `after the retries ${converged ? 'converged' : 'did not converge'} (${done.evidence})`;
    const name = done.config.metadata.name;
    const listed = await expectOneContainer(t, done.podId, name, when, 'one-container', {
      allowNone: !converged,
    });
    if (listed.length > 0) return;
    // None listed, yet the retries were refused: the runtime still holds the name, or something unlisted
    // under it. Either way the kubelet can never create this container; the name must be free by now.
    t.step(`no container named ${name} is listed: the identical CreateContainer must now create it`);
    const again = await t.cri.retry('CreateContainer', done.request, {
      ...kubeletRetry(t),
      budgetMs: t.settings.marginMs,
    });
    t.expect(
      again.value !== undefined,
      `the runtime lists no container named ${name} in sandbox ${shortId(done.podId)} ${when}, yet the identical CreateContainer is still refused: the name is left reserved with no container (${describeAttempts(again.attempts)})`,
      'one-container',
    );
    await expectOneContainer(
      t,
      done.podId,
      name,
      'after the identical CreateContainer created it',
      'one-container',
    );
  },
});
