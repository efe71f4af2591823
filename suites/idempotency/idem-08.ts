import {
  type CallResult,
  type CheckContext,
  defineCheck,
  type RetryOutcome,
  type RetryPolicy,
  type SlowRuntime,
  shortId,
} from '../../src/harness/face.js';
import { podState } from '../common/census.js';
import { DELAY_MS } from '../common/timing.js';
import { containerState, watchUntilLetGo } from './abandoned.js';
import { timeOutContainerOnSlowHandler } from './container-scenarios.js';
import { converge, timeOutOnSlowHandler } from './scenarios.js';

/** One timed-out attempt 0 and how to send attempt 1 of the same request. */
interface Bump {
  kind: 'sandbox' | 'container';
  /** "RunPodSandbox cc-idem-08-..." */
  call: string;
  attempt: number;
  abandoned: string;
  first: CallResult<unknown>;
  /** Attempt + 1, retried kubelet-like; the value is the id it got. */
  next(policy: RetryPolicy): Promise<RetryOutcome<string>>;
  live: string;
  state(): Promise<string>;
}

/** Attempt + 1 must get a new object, and the abandoned one must be let go; returns its last state. */
async function bumpAndWatch(t: CheckContext, b: Bump): Promise<string> {
  await t.pause(DELAY_MS, 'let the timed-out build finish, so attempt 0 has a finished object to abandon');
  const { value } = await converge(t, `${b.call} with attempt ${b.attempt + 1}`, b.first, b.next);
  t.expect(
    value !== b.abandoned,
    `attempt ${b.attempt + 1} was answered with ${shortId(b.abandoned)}, the ${b.kind} built for the abandoned attempt ${b.attempt}`,
  );
  const target = { what: `the abandoned attempt's ${b.kind}`, id: b.abandoned, live: b.live, state: b.state };
  return watchUntilLetGo(t, target, t.settings.cacheTtlMs + t.settings.marginMs);
}

function idOf<T>(outcome: RetryOutcome<T>, pick: (v: T) => string): RetryOutcome<string> {
  return outcome.value === undefined
    ? { attempts: outcome.attempts }
    : { attempts: outcome.attempts, value: pick(outcome.value) };
}

async function abandonSandbox(t: CheckContext): Promise<void> {
  const timedOut = await timeOutOnSlowHandler(t, 'idem-08');
  const { metadata } = timedOut.config;
  const request = {
    ...timedOut.request,
    config: { ...timedOut.config, metadata: { ...metadata, attempt: metadata.attempt + 1 } },
  };
  const abandoned = timedOut.builtId;
  const state = await bumpAndWatch(t, {
    kind: 'sandbox',
    call: `RunPodSandbox ${metadata.name}`,
    attempt: metadata.attempt,
    abandoned,
    first: timedOut.first,
    next: async (p) => idOf(await t.cri.retry('RunPodSandbox', request, p), (v) => v.podSandboxId),
    live: 'SANDBOX_READY',
    state: () => podState(t, abandoned),
  });
  if (state === 'GONE') return;
  // A NOTREADY sandbox of an old attempt is what the kubelet stops and removes: that must work.
  await t.cri.stopPod(abandoned);
  await t.cri.removePod(abandoned);
}

async function abandonContainer(t: CheckContext, slow: SlowRuntime): Promise<void> {
  const timedOut = await timeOutContainerOnSlowHandler(t, 'idem-08-ctr', slow);
  if ('notRun' in timedOut) {
    t.step(`container variant not run: ${timedOut.notRun}`);
    t.observe('container variant', `not run: ${timedOut.notRun}`);
    return;
  }
  const { metadata } = timedOut.config;
  const request = {
    ...timedOut.request,
    config: { ...timedOut.config, metadata: { ...metadata, attempt: metadata.attempt + 1 } },
  };
  const abandoned = timedOut.builtId;
  const state = await bumpAndWatch(t, {
    kind: 'container',
    call: `CreateContainer ${metadata.name}`,
    attempt: metadata.attempt,
    abandoned,
    first: timedOut.first,
    next: async (p) => idOf(await t.cri.retry('CreateContainer', request, p), (v) => v.containerId),
    live: 'CONTAINER_RUNNING',
    state: () => containerState(t, abandoned),
  });
  // A visible container of an old attempt is what the kubelet removes: that must work.
  if (state !== 'GONE') await t.cri.removeContainer(abandoned);
}

export const check = defineCheck({
  id: 'IDEM-08',
  level: 'SHOULD',
  tags: ['Slow'],
  needs: ['slow-runtime'],
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
