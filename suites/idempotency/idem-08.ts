import { type CheckContext, defineCheck, type SlowRuntime, shortId } from '../../src/harness/face.js';
import { podState } from '../common/census.js';
import { DELAY_MS } from '../common/timing.js';
import { containerState, watchUntilLetGo } from './abandoned.js';
import { timeOutContainerOnSlowHandler } from './container-scenarios.js';
import { converge, timeOutOnSlowHandler } from './scenarios.js';

const PAUSE_WHY = 'let the timed-out build finish, so attempt 0 has a finished object to abandon';

/** The sandbox variant: RunPodSandbox attempt 0 times out, attempt 1 must get a new sandbox. */
async function abandonSandbox(t: CheckContext): Promise<void> {
  const timedOut = await timeOutOnSlowHandler(t, 'idem-08');
  const abandoned = timedOut.builtId;
  const { metadata } = timedOut.config;
  const next = {
    ...timedOut.request,
    config: { ...timedOut.config, metadata: { ...metadata, attempt: metadata.attempt + 1 } },
  };
  await t.pause(DELAY_MS, PAUSE_WHY);
  const bumped = `RunPodSandbox ${metadata.name} with attempt ${metadata.attempt + 1}`;
  const { value } = await converge(t, bumped, timedOut.first, (p) => t.cri.retry('RunPodSandbox', next, p));
  t.expect(
    value.podSandboxId !== abandoned,
    `attempt ${metadata.attempt + 1} was answered with ${shortId(abandoned)}, the sandbox built for the abandoned attempt ${metadata.attempt}`,
  );
  const state = await watchUntilLetGo(
    t,
    {
      what: "the abandoned attempt's sandbox",
      id: abandoned,
      live: 'SANDBOX_READY',
      state: () => podState(t, abandoned),
    },
    t.settings.cacheTtlMs + t.settings.marginMs,
  );
  if (state === 'GONE') return;
  // A NOTREADY sandbox of an old attempt is what the kubelet stops and removes: that must work.
  await t.cri.stopPod(abandoned);
  await t.cri.removePod(abandoned);
}

/** The container variant: CreateContainer attempt 0 times out, attempt 1 must get a new container. */
async function abandonContainer(t: CheckContext, slow: SlowRuntime): Promise<void> {
  const timedOut = await timeOutContainerOnSlowHandler(t, 'idem-08-ctr', slow);
  if ('notRun' in timedOut) {
    t.step(`container variant not run: ${timedOut.notRun}`);
    t.observe('container variant', `not run: ${timedOut.notRun}`);
    return;
  }
  const abandoned = timedOut.builtId;
  const { metadata } = timedOut.config;
  const next = {
    ...timedOut.request,
    config: { ...timedOut.config, metadata: { ...metadata, attempt: metadata.attempt + 1 } },
  };
  await t.pause(DELAY_MS, PAUSE_WHY);
  const bumped = `CreateContainer ${metadata.name} with attempt ${metadata.attempt + 1}`;
  const { value } = await converge(t, bumped, timedOut.first, (p) => t.cri.retry('CreateContainer', next, p));
  t.expect(
    value.containerId !== abandoned,
    `attempt ${metadata.attempt + 1} was answered with ${shortId(abandoned)}, the container built for the abandoned attempt ${metadata.attempt}`,
  );
  const state = await watchUntilLetGo(
    t,
    {
      what: "the abandoned attempt's container",
      id: abandoned,
      live: 'CONTAINER_RUNNING',
      state: () => containerState(t, abandoned),
    },
    t.settings.cacheTtlMs + t.settings.marginMs,
  );
  // A visible container of an old attempt is what the kubelet removes: that must work.
  if (state !== 'GONE') await t.cri.removeContainer(abandoned);
}

export const check = defineCheck({
  id: 'IDEM-08',
  level: 'SHOULD',
  tags: ['Slow'],
  needs: ['exclusive'],
  title:
    'After a timeout, a request with attempt+1 gets a new sandbox (container), and the abandoned attempt is let go within --cache-ttl: never left READY (RUNNING), nor hidden while the runtime still holds it',
  contract:
    'kubelet: when it gives up on a sandbox it sends RunPodSandbox with attempt+1 and removes the sandboxes of older attempts it can list (containers likewise); CRI-O issue 4221 (ResourceCache): a cached resource expires after its TTL',
  async run(t: CheckContext) {
    const slow = t.inject.slowRuntime();
    t.step('sandbox variant');
    await abandonSandbox(t);
    t.step('container variant');
    await abandonContainer(t, slow);
  },
});
