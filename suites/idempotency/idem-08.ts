import {
  type CheckContext,
  defineCheck,
  type RetryOutcome,
  type RetryPolicy,
  shortId,
} from '../../src/harness/face.js';
import { podState } from '../common/census.js';
import { DELAY_MS } from '../common/timing.js';
import { variantsSideBySide } from '../common/variants.js';
import { containerState, watchUntilLetGo } from './abandoned.js';
import { converge, type FirstAttempt, idOf } from './scenarios.js';
import {
  type BuiltContainer,
  type BuiltPod,
  containerVariantOnSlowHandler,
  RESTS_BESIDE_HELD_HOOKS,
  sandboxVariant,
} from './ttl-variants.js';

/** One timed-out attempt 0 and how to send attempt 1 of the same request. */
interface Bump {
  kind: 'sandbox' | 'container';
  method: 'RunPodSandbox' | 'CreateContainer';
  timedOut: {
    config: { metadata: { name: string; attempt: number } };
    first: FirstAttempt<unknown>;
    builtId: string;
  };
  /** Attempt + 1, retried kubelet-like; the value is the id it got. */
  next(policy: RetryPolicy): Promise<RetryOutcome<string>>;
  live: string;
  state(): Promise<string>;
}

/** Attempt + 1 must get a new object, and the abandoned one must be let go; returns its last state. */
async function bumpAndWatch(t: CheckContext, b: Bump): Promise<string> {
  const { metadata } = b.timedOut.config;
  const abandoned = b.timedOut.builtId;
  await t.pause(
    b.timedOut.first.holdMs ?? DELAY_MS,
    'let the timed-out build finish, so attempt 0 has a finished object to abandon',
  );
  // Every build the check held has ended: NRI checks may fill its watch.
  t.inject.doneHolding();
  const call = `${b.method} ${metadata.name} with attempt ${metadata.attempt + 1}`;
  const { value } = await converge(t, 'new-object', call, b.timedOut.first, b.next);
  t.expect(
    value !== abandoned,
    `attempt ${metadata.attempt + 1} was answered with ${shortId(abandoned)}, the ${b.kind} built for the abandoned attempt ${metadata.attempt}`,
    'new-object',
  );
  const target = { what: `the abandoned attempt's ${b.kind}`, id: abandoned, live: b.live, state: b.state };
  return watchUntilLetGo(t, target, t.settings.cacheTtlMs + t.settings.marginMs, {
    letGo: 'let-go',
    notHidden: 'not-hidden',
  });
}

/** The same request with the next attempt number. */
function nextAttempt<R extends { config: { metadata: { attempt: number } } }>(request: R): R {
  const { config } = request;
  return {
    ...request,
    config: { ...config, metadata: { ...config.metadata, attempt: config.metadata.attempt + 1 } },
  };
}

async function bumpAbandonedSandbox(t: CheckContext, timedOut: BuiltPod) {
  const request = nextAttempt(timedOut.request);
  const abandoned = timedOut.builtId;
  const state = await bumpAndWatch(t, {
    kind: 'sandbox',
    method: 'RunPodSandbox',
    timedOut,
    next: async (p) => idOf(await t.cri.retry('RunPodSandbox', request, p), (v) => v.podSandboxId),
    live: 'SANDBOX_READY',
    state: () => podState(t, abandoned),
  });
  if (state === 'GONE') return;
  // A NOTREADY sandbox of an old attempt is what the kubelet stops and removes: that must work.
  await t.expectOk(
    `StopPodSandbox of the abandoned ${shortId(abandoned)}`,
    t.cri.stopPod(abandoned),
    'let-go',
  );
  await t.expectOk(
    `RemovePodSandbox of the abandoned ${shortId(abandoned)}`,
    t.cri.removePod(abandoned),
    'let-go',
  );
}

async function bumpAbandonedContainer(t: CheckContext, timedOut: BuiltContainer) {
  const request = nextAttempt(timedOut.request);
  const abandoned = timedOut.builtId;
  const state = await bumpAndWatch(t, {
    kind: 'container',
    method: 'CreateContainer',
    timedOut,
    next: async (p) => idOf(await t.cri.retry('CreateContainer', request, p), (v) => v.containerId),
    live: 'CONTAINER_RUNNING',
    state: () => containerState(t, abandoned),
  });
  // A visible container of an old attempt is what the kubelet removes: that must work.
  if (state !== 'GONE') {
    await t.expectOk(
      `RemoveContainer of the abandoned ${shortId(abandoned)}`,
      t.cri.removeContainer(abandoned),
      'let-go',
    );
  }
}

export const check = defineCheck({
  id: 'IDEM-08',
  level: 'SHOULD',
  tags: ['Slow'],
  longWait:
    'each variant watches the abandoned attempt for up to --cache-ttl (150 s by default), a window the checks beside it can fill',
  needs: ['slow-runtime'],
  restsBesideHeldHooks: `${RESTS_BESIDE_HELD_HOOKS}; its watch of the abandoned attempt over --cache-ttl reads listings and statuses, which no hook holds`,
  title:
    'After a timeout, a request with attempt+1 gets a new sandbox (container), and the abandoned attempt is let go within --cache-ttl: never left READY (RUNNING), nor hidden while the runtime still holds it',
  contract:
    'kubelet: when it gives up on a sandbox it sends RunPodSandbox with attempt+1 and removes the sandboxes of older attempts it can list (containers likewise); CRI-O issue 4221 (ResourceCache): a cached resource expires after its TTL',
  clauses: {
    'new-object': 'a request with attempt+1 gets a new sandbox (container), not the abandoned one',
    'let-go': 'the abandoned attempt is not left READY (RUNNING) past --cache-ttl, and can be removed',
    'not-hidden':
      'the abandoned attempt is not hidden from the CRI while the runtime or the host still holds it',
  },
  async run(t: CheckContext) {
    const slow = t.inject.slowRuntime();
    t.step('the sandbox and the container variant, side by side: each waits out --cache-ttl');
    await variantsSideBySide(
      sandboxVariant(t, 'idem-08', (timedOut) => bumpAbandonedSandbox(t, timedOut)),
      containerVariantOnSlowHandler(t, 'idem-08-ctr', slow, (timedOut) =>
        bumpAbandonedContainer(t, timedOut),
      ),
    );
  },
});
