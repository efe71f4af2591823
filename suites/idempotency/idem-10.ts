import {
  type CheckContext,
  defineCheck,
  type RetryAttempt,
  type SlowRuntime,
  shortId,
} from '../../src/harness/face.js';
import { DELAY_MS } from '../common/timing.js';
import { claimAndRemove, claimContainerAndRemove, removeQuietly } from './claim.js';
import { timeOutContainerOnSlowHandler, variantNotRun } from './container-scenarios.js';
import { evidence, idsBuiltBy, kubeletRetry, timeOutRunPod } from './scenarios.js';

const VARIANT = 'cri-conform.io/variant';

/** Retried until a while after the timed-out build has ended: then a runtime has answered or refused. */
function differentRequestRetry(t: CheckContext) {
  return { ...kubeletRetry(t), budgetMs: DELAY_MS + 1_000 };
}

/**
 * The object the different request got must not be the one built for the timed-out request (the id the
 * delay logged for that build), and it must carry the different request's labels: a cache that hands out
 * the old object with its labels rewritten passes a look at the labels alone.
 */
function expectOwnObject(
  t: CheckContext,
  call: string,
  got: { id: string; builtId: string; labels: Record<string, string> },
  line: string,
): void {
  const { id, builtId, labels } = got;
  t.expect(
    id !== builtId,
    `a ${call} with ${VARIANT}=second was answered with ${shortId(id)}, the object built for the timed-out request (its id is the one the delay logged for that build); ${line}`,
  );
  t.expect(
    labels[VARIANT] === 'second',
    `a ${call} with ${VARIANT}=second was answered with ${shortId(id)}, whose labels are the timed-out request's (${VARIANT}=${
      labels[VARIANT] ?? 'absent'
    }); ${line}`,
  );
}

/**
 * The different request was refused every time (e.g. "name is reserved" until the first one is gone): it
 * was then never answered with the timed-out request's object, which is the contract. What the retries
 * got is asserted, so the verdict rests on a reply the runtime gave, not on nothing.
 */
function refusedKeepsContract(
  t: CheckContext,
  call: string,
  attempts: readonly RetryAttempt[],
  line: string,
): void {
  t.expect(
    attempts.length > 0 && attempts.every((a) => a.code !== 'OK'),
    `the different ${call} got neither an object nor a refusal: ${line}`,
  );
}

/** The sandbox variant. */
async function differentSandbox(t: CheckContext): Promise<void> {
  t.step('time out a RunPodSandbox, then send one with the same metadata and other labels');
  const delay = t.inject.creationDelay();
  const built = idsBuiltBy(t, delay);
  const timedOut = await timeOutRunPod(t, 'idem-10', delay);
  const builtId = await t.poll(async () => (await built())[0], {
    withinMs: DELAY_MS + t.settings.marginMs,
    what: `the ${delay.name} to log the sandbox the timed-out request built`,
  });
  const { config } = timedOut;
  const other = {
    ...timedOut.request,
    config: { ...config, labels: { ...config.labels, [VARIANT]: 'second' } },
  };
  t.step(`RunPodSandbox ${config.metadata.name} again, with the extra label ${VARIANT}=second`);
  const outcome = await t.cri.retry('RunPodSandbox', other, differentRequestRetry(t));
  const line = evidence(timedOut.first, outcome);
  t.observe('different request succeeded', outcome.value !== undefined);
  if (outcome.value === undefined) {
    refusedKeepsContract(t, 'RunPodSandbox', outcome.attempts, line);
  } else {
    const podId = outcome.value.podSandboxId;
    const { labels } = await t.cri.podStatus(podId);
    expectOwnObject(t, 'RunPodSandbox', { id: podId, builtId, labels }, line);
    // It holds the name: remove it, so the identical request can claim what the first one left.
    await removeQuietly(t, podId);
  }
  await claimAndRemove(t, timedOut);
}

/** The container variant, on the slow runtime handler (not run where it cannot hold CreateContainer). */
async function differentContainer(t: CheckContext, slow: SlowRuntime): Promise<void> {
  t.step('time out a CreateContainer, then send one with the same metadata and other labels');
  const timedOut = await timeOutContainerOnSlowHandler(t, 'idem-10-ctr', slow);
  if ('notRun' in timedOut) return variantNotRun(t, timedOut.notRun);
  const { config } = timedOut;
  const other = {
    ...timedOut.request,
    config: { ...config, labels: { ...config.labels, [VARIANT]: 'second' } },
  };
  const outcome = await t.cri.retry('CreateContainer', other, differentRequestRetry(t));
  t.observe('different container request succeeded', outcome.value !== undefined);
  const line = evidence(timedOut.first, outcome);
  if (outcome.value === undefined) {
    refusedKeepsContract(t, 'CreateContainer', outcome.attempts, line);
  } else {
    const containerId = outcome.value.containerId;
    const { labels } = await t.cri.containerStatus(containerId);
    expectOwnObject(t, 'CreateContainer', { id: containerId, builtId: timedOut.builtId, labels }, line);
    await t.cri.tryCall('RemoveContainer', { containerId });
  }
  await claimContainerAndRemove(t, timedOut);
}

export const check = defineCheck({
  id: 'IDEM-10',
  level: 'SHOULD',
  needs: ['creation-delay'],
  uses: ['slow-runtime', 'slow-cni'],
  title:
    "A RunPodSandbox (CreateContainer) with the same metadata but other labels than a timed-out one is never answered with the sandbox (container) built for the timed-out request, by id, nor with one that carries the timed-out request's labels",
  contract:
    'cri-api v0.32.3 api.proto RunPodSandboxRequest and CreateContainerRequest: the object is created from "config", labels included; CRI-O issue 4221 (ResourceCache): a cached resource is handed out only to an identical request',
  async run(t: CheckContext) {
    await differentSandbox(t);
    if (t.inject.offers('slow-runtime') === undefined) await differentContainer(t, t.inject.slowRuntime());
  },
});
