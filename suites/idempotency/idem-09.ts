import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { podState } from '../common/census.js';
import { DELAY_MS } from '../common/timing.js';
import { converge, timeOutOnSlowHandler } from './scenarios.js';

export const check = defineCheck({
  id: 'IDEM-09',
  level: 'SHOULD',
  tags: ['Slow'],
  needs: ['slow-runtime'],
  title:
    'A timed-out sandbox that nobody asks for again is reclaimed within --cache-ttl, and an identical request afterwards gets a fresh sandbox',
  contract:
    'CRI-O issue 4221 (ResourceCache): a resource built for a timed-out request is kept only for a bounded time, then cleaned up; the kubelet may never retry (the pod was deleted meanwhile)',
  async run(t: CheckContext) {
    const timedOut = await timeOutOnSlowHandler(t, 'idem-09');
    const held = timedOut.builtId;
    const ttlMs = t.settings.cacheTtlMs;
    // The TTL runs from the end of the build, which the delay bounds.
    await t.pause(
      DELAY_MS + ttlMs,
      `nobody asks for ${shortId(held)} until its build is done and --cache-ttl has passed`,
    );
    await t.expectWithin(async () => (await podState(t, held)) === 'GONE', {
      withinMs: t.settings.marginMs,
      everyMs: 250,
      what: `the unclaimed timed-out sandbox ${shortId(held)} to be reclaimed (PodSandboxStatus reports it absent) after --cache-ttl ${ttlMs} ms`,
    });

    const what = `the identical RunPodSandbox ${timedOut.config.metadata.name} after the TTL`;
    const { value } = await converge(t, what, timedOut.first, (p) =>
      t.cri.retry('RunPodSandbox', timedOut.request, p),
    );
    t.expect(
      value.podSandboxId !== held,
      `the identical RunPodSandbox after --cache-ttl ${ttlMs} ms was still answered with the stale ${shortId(held)}: it was never reclaimed`,
    );
  },
});
