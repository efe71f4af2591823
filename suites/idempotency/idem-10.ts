import {
  type CallResult,
  type CheckContext,
  defineCheck,
  describeAttempts,
  type RetryOutcome,
  type RetryPolicy,
  type SlowRuntime,
  shortId,
} from '../../src/harness/face.js';
import { DELAY_MS } from '../common/timing.js';
import { claimAndRemove, claimContainerAndRemove, removeQuietly } from './claim.js';
import { timeOutContainerOnSlowHandler, variantNotRun } from './container-scenarios.js';
import { kubeletRetry } from './kubelet-retry.js';
import { evidence, idOf } from './scenarios.js';
import { timeOutHeldRunPod } from './slow-handler.js';

const VARIANT = 'cri-conform.io/variant';

/**
 * Retried until a while after the timed-out build has ended: then a runtime has answered or refused. The
 * first send does not wait on past that for a runtime that lists nothing under the name (settleMs): a
 * refusal then is met by claiming the timed-out request (differentObject), and on a runtime that keeps the
 * name for reuse unlisted (the reference runtime's cache) the wait only ran out, 14 s per variant.
 */
function differentRequestRetry(t: CheckContext, settle: boolean): RetryPolicy {
  const policy = { ...kubeletRetry(t), budgetMs: DELAY_MS + 1_000 };
  return settle ? policy : { ...policy, settleMs: 0 };
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
    'not-cached-object',
  );
  t.expect(
    labels[VARIANT] === 'second',
    `a ${call} with ${VARIANT}=second was answered with ${shortId(id)}, whose labels are the timed-out request's (${VARIANT}=${
      labels[VARIANT] ?? 'absent'
    }); ${line}`,
    'own-labels',
  );
}

/**
 * The id the different request got, and the evidence line: at once, or, refused while the timed-out
 * request held the name (e.g. "name is reserved"), once that one is claimed and removed. A refusal hands
 * out nothing, so it proves nothing either; refused again then, nothing was ever handed out to judge, and
 * the check cannot decide (ERROR). `claimed` says whether the timed-out request is gone already.
 */
async function differentObject(
  t: CheckContext,
  call: string,
  send: (policy: RetryPolicy) => Promise<RetryOutcome<string>>,
  timedOut: { first: CallResult<unknown>; claim: () => Promise<unknown> },
): Promise<{ id: string; line: string; claimed: boolean }> {
  const outcome = await send(differentRequestRetry(t, false));
  const line = evidence(timedOut.first, outcome);
  t.observe(`different ${call} succeeded`, outcome.value !== undefined);
  if (outcome.value !== undefined) return { id: outcome.value, line, claimed: false };
  await timedOut.claim();
  t.step(`the different ${call} again, now that the timed-out one is claimed and removed`);
  const again = await send(differentRequestRetry(t, true));
  t.require(
    again.value !== undefined,
    `the different ${call} was refused before and after the timed-out request was claimed and removed (${describeAttempts(again.attempts)}; first: ${line}), so no object it got could be judged`,
  );
  return { id: again.value, line, claimed: true };
}

/** The same request with one label more: same metadata, another object. */
function withSecondLabel<R extends { config: { labels: Record<string, string> } }>(request: R): R {
  const { config } = request;
  return { ...request, config: { ...config, labels: { ...config.labels, [VARIANT]: 'second' } } };
}

/** The sandbox variant. */
async function differentSandbox(t: CheckContext): Promise<void> {
  t.step('time out a RunPodSandbox, then send one with the same metadata and other labels');
  const timedOut = await timeOutHeldRunPod(t, 'idem-10');
  const { builtId } = timedOut;
  const other = withSecondLabel(timedOut.request);
  t.step(`RunPodSandbox ${other.config.metadata.name} again, with the extra label ${VARIANT}=second`);
  const got = await differentObject(
    t,
    'RunPodSandbox',
    async (policy) => idOf(await t.cri.retry('RunPodSandbox', other, policy), (v) => v.podSandboxId),
    { first: timedOut.first, claim: () => claimAndRemove(t, timedOut) },
  );
  const { labels } = await t.cri.podStatus(got.id);
  expectOwnObject(t, 'RunPodSandbox', { id: got.id, builtId, labels }, got.line);
  // It holds the name: remove it, so the identical request can claim what the first one left.
  await removeQuietly(t, got.id);
  if (!got.claimed) await claimAndRemove(t, timedOut);
}

/** The container variant, on the slow runtime handler (not run where it cannot hold CreateContainer). */
async function differentContainer(t: CheckContext, slow: SlowRuntime): Promise<void> {
  t.step('time out a CreateContainer, then send one with the same metadata and other labels');
  const timedOut = await timeOutContainerOnSlowHandler(t, 'idem-10-ctr', slow);
  if ('notRun' in timedOut) return variantNotRun(t, timedOut.notRun);
  const other = withSecondLabel(timedOut.request);
  const got = await differentObject(
    t,
    'CreateContainer',
    async (policy) => idOf(await t.cri.retry('CreateContainer', other, policy), (v) => v.containerId),
    { first: timedOut.first, claim: () => claimContainerAndRemove(t, timedOut) },
  );
  const { labels } = await t.cri.containerStatus(got.id);
  expectOwnObject(t, 'CreateContainer', { id: got.id, builtId: timedOut.builtId, labels }, got.line);
  await t.cri.tryCall('RemoveContainer', { containerId: got.id });
  if (!got.claimed) await claimContainerAndRemove(t, timedOut);
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
  clauses: {
    'not-cached-object':
      'a request with other labels is never answered with the object built for the timed-out request',
    'own-labels': "the object it gets carries its own labels, not the timed-out request's",
  },
  async run(t: CheckContext) {
    await differentSandbox(t);
    if (t.inject.offers('slow-runtime') === undefined) await differentContainer(t, t.inject.slowRuntime());
  },
});
