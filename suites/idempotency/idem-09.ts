import { type CheckContext, defineCheck, describeLeaks, shortId } from '../../src/harness/face.js';
import { podState } from '../common/census.js';
import { DELAY_MS } from '../common/timing.js';
import { variantsSideBySide } from '../common/variants.js';
import { containerState } from './abandoned.js';
import { converge } from './scenarios.js';
import {
  type BuiltContainer,
  type BuiltPod,
  containerVariantOnSlowHandler,
  RESTS_BESIDE_HELD_HOOKS,
  sandboxVariant,
} from './ttl-variants.js';

/**
 * Waits out the build (bounded by the delay) and --cache-ttl, then asserts that the object is gone from
 * the CRI and, where host probes work, that neither the runtime's records nor the host still hold it: a
 * runtime may hide a held object from the CRI without letting it go.
 */
async function expectReclaimed(
  t: CheckContext,
  what: string,
  built: { id: string; heldMs: number | undefined },
  state: () => Promise<string>,
): Promise<void> {
  const { id } = built;
  const ttlMs = t.settings.cacheTtlMs;
  await t.pause(built.heldMs ?? DELAY_MS, `nobody asks for ${what} ${shortId(id)} while its build ends`);
  // Every build the check held has ended: NRI checks may fill the wait.
  t.inject.doneHolding();
  await t.pause(ttlMs, `nobody asks for ${what} ${shortId(id)} until --cache-ttl has passed`);
  const gone = await t
    .poll(async () => (await state()) === 'GONE', {
      withinMs: t.settings.marginMs,
      everyMs: 250,
      what: `${what} ${shortId(id)} to be reclaimed`,
    })
    .then(
      () => true,
      () => false,
    );
  t.expect(
    gone,
    `${what} ${shortId(id)} is still ${await state()} after --cache-ttl ${ttlMs} ms`,
    'reclaimed',
  );
  if (!t.host.available) {
    const why = t.host.whyUnavailable ?? 'host probes unavailable';
    t.notRun('host part', `whether the runtime or the host still holds ${what} was not asked: ${why}`);
    return;
  }
  let held = await t.host.stillHeld([id]);
  await t
    .poll(
      async () => {
        held = await t.host.stillHeld([id]);
        return held.length === 0;
      },
      { withinMs: t.settings.marginMs, everyMs: 250, what: `${what} ${shortId(id)} to be let go` },
    )
    .catch(() => undefined);
  t.expect(
    held.length === 0,
    `${what} ${shortId(id)} is gone from the CRI but still held after --cache-ttl ${ttlMs} ms: ${describeLeaks(held)}`,
    'not-hidden',
  );
}

/** What the timed-out request built, and how long its build was held (more where setup was seen late). */
function builtBy(timedOut: BuiltPod | BuiltContainer): { id: string; heldMs: number | undefined } {
  return { id: timedOut.builtId, heldMs: timedOut.first.holdMs };
}

/** The sandbox variant: nobody retries the timed-out RunPodSandbox until the TTL has passed. */
async function reclaimedSandbox(t: CheckContext, timedOut: BuiltPod) {
  const held = timedOut.builtId;
  await expectReclaimed(t, 'the unclaimed timed-out sandbox', builtBy(timedOut), () => podState(t, held));
  const what = `the identical RunPodSandbox ${timedOut.config.metadata.name} after the TTL`;
  const { value } = await converge(t, 'fresh', what, timedOut.first, (p) =>
    t.cri.retry('RunPodSandbox', timedOut.request, p),
  );
  t.expect(
    value.podSandboxId !== held,
    `the identical RunPodSandbox after --cache-ttl was still answered with the stale ${shortId(held)}: it was never reclaimed`,
    'fresh',
  );
}

/** The container variant: nobody retries the timed-out CreateContainer until the TTL has passed. */
async function reclaimedContainer(t: CheckContext, timedOut: BuiltContainer) {
  const held = timedOut.builtId;
  await expectReclaimed(t, 'the unclaimed timed-out container', builtBy(timedOut), () =>
    containerState(t, held),
  );
  const what = `the identical CreateContainer in ${shortId(timedOut.podId)} after the TTL`;
  const { value } = await converge(t, 'fresh', what, timedOut.first, (p) =>
    t.cri.retry('CreateContainer', timedOut.request, p),
  );
  t.expect(
    value.containerId !== held,
    `the identical CreateContainer after --cache-ttl was still answered with the stale ${shortId(held)}: it was never reclaimed`,
    'fresh',
  );
}

export const check = defineCheck({
  id: 'IDEM-09',
  level: 'SHOULD',
  tags: ['Slow'],
  longWait:
    'each variant waits out --cache-ttl (150 s by default) before it looks, a window the checks beside it can fill',
  needs: ['slow-runtime'],
  restsBesideHeldHooks: `${RESTS_BESIDE_HELD_HOOKS}; what it asks once --cache-ttl has passed (listings, statuses, the host) no hook holds`,
  title:
    'A timed-out sandbox (container) that nobody asks for again is reclaimed within --cache-ttl, by the CRI and by the runtime, and an identical request afterwards gets a fresh one',
  contract:
    'CRI-O issue 4221 (ResourceCache): a resource built for a timed-out request is kept only for a bounded time, then cleaned up; the kubelet may never retry (the pod was deleted meanwhile)',
  clauses: {
    reclaimed: 'an unclaimed timed-out sandbox (container) is gone from the CRI within --cache-ttl',
    'not-hidden': 'once gone from the CRI, the runtime and the host hold nothing of it',
    fresh: 'an identical request after --cache-ttl converges to a fresh sandbox (container)',
  },
  async run(t: CheckContext) {
    const slow = t.inject.slowRuntime();
    t.step('the sandbox and the container variant, side by side: each waits out --cache-ttl');
    await variantsSideBySide(
      sandboxVariant(t, 'idem-09', (timedOut) => reclaimedSandbox(t, timedOut)),
      containerVariantOnSlowHandler(t, 'idem-09-ctr', slow, (timedOut) => reclaimedContainer(t, timedOut)),
    );
  },
});
