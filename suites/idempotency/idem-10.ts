import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { DELAY_MS } from '../common/timing.js';
import { evidence, kubeletRetry, timeOutRunPod } from './scenarios.js';

const VARIANT = 'cri-conform.io/variant';

export const check = defineCheck({
  id: 'IDEM-10',
  level: 'SHOULD',
  needs: ['creation-delay'],
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
    const podId = outcome.value?.podSandboxId;
    const label = podId === undefined ? 'second' : (await t.cri.podStatus(podId)).labels[VARIANT];
    t.expect(
      label === 'second',
      `a request with ${VARIANT}=second was answered with ${shortId(podId ?? '')}, whose labels are the timed-out request's (${VARIANT}=${
        label ?? 'absent'
      }); ${line}`,
    );
  },
});
