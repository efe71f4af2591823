import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { DELAY_MS } from '../common/timing.js';
import { claimAndRemove, removeQuietly } from './claim.js';
import { evidence, kubeletRetry, timeOutRunPod } from './scenarios.js';

const VARIANT = 'cri-conform.io/variant';

export const check = defineCheck({
  id: 'IDEM-10',
  level: 'SHOULD',
  needs: ['exclusive'],
  title:
    'A RunPodSandbox with the same metadata but other labels than a timed-out one is never answered with the sandbox built for the timed-out request',
  contract:
    'cri-api v0.32.3 api.proto RunPodSandboxRequest: the sandbox is created from "config", labels included; CRI-O issue 4221 (ResourceCache): a cached resource is handed out only to an identical request',
  async run(t: CheckContext) {
    t.step('time out a RunPodSandbox, then send one with the same metadata and other labels');
    const timedOut = await timeOutRunPod(t, 'idem-10', t.inject.creationDelay());
    const { config } = timedOut;
    const other = {
      ...timedOut.request,
      config: { ...config, labels: { ...config.labels, [VARIANT]: 'second' } },
    };
    t.step(`RunPodSandbox ${config.metadata.name} again, with the extra label ${VARIANT}=second`);
    // Retried until a while after the timed-out build has ended: then a runtime has either answered, or
    // refused because the first request's sandbox still holds the name (which keeps the contract).
    const policy = { ...kubeletRetry(t), budgetMs: DELAY_MS + 1_000 };
    const outcome = await t.cri.retry('RunPodSandbox', other, policy);
    const line = evidence(timedOut.first, outcome);
    t.observe('different request succeeded', outcome.value !== undefined);
    // Refusing the different request (e.g. "name is reserved" until the first is gone) keeps the contract.
    if (outcome.value !== undefined) {
      const podId = outcome.value.podSandboxId;
      const status = await t.cri.podStatus(podId);
      t.expect(
        status.labels[VARIANT] === 'second',
        `a request with ${VARIANT}=second was answered with ${shortId(podId)}, whose labels are the timed-out request's (${VARIANT}=${
          status.labels[VARIANT] ?? 'absent'
        }); ${line}`,
      );
      // It holds the name: remove it, so the identical request can claim what the first one left.
      await removeQuietly(t, podId);
    }
    await claimAndRemove(t, timedOut);
  },
});
