import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { podState } from '../common/census.js';
import { DELAY_MS } from '../common/timing.js';
import { converge, timeOutOnSlowHandler } from './scenarios.js';

export const check = defineCheck({
  id: 'IDEM-08',
  level: 'SHOULD',
  tags: ['Slow'],
  needs: ['slow-runtime'],
  title:
    'After a timeout, a request with attempt+1 gets a new sandbox, and the abandoned attempt does not stay READY beyond --cache-ttl',
  contract:
    'kubelet: when it gives up on a sandbox it sends RunPodSandbox with attempt+1 and removes the sandboxes of older attempts it can list; CRI-O issue 4221 (ResourceCache): a cached resource expires after its TTL',
  async run(t: CheckContext) {
    const timedOut = await timeOutOnSlowHandler(t, 'idem-08');
    const abandoned = timedOut.builtId;
    const { metadata } = timedOut.config;
    const next = {
      ...timedOut.request,
      config: { ...timedOut.config, metadata: { ...metadata, attempt: metadata.attempt + 1 } },
    };
    await t.pause(DELAY_MS, 'let the timed-out build finish, so attempt 0 has a finished sandbox to abandon');
    const bumped = `RunPodSandbox ${metadata.name} with attempt ${metadata.attempt + 1}`;
    const { value } = await converge(t, bumped, timedOut.first, (p) => t.cri.retry('RunPodSandbox', next, p));
    t.expect(
      value.podSandboxId !== abandoned,
      `attempt ${metadata.attempt + 1} was answered with ${shortId(abandoned)}, the sandbox built for the abandoned attempt ${metadata.attempt}`,
    );

    const ttlMs = t.settings.cacheTtlMs;
    const notReady = async () => {
      const now = await podState(t, abandoned);
      return now !== 'SANDBOX_READY' && now;
    };
    const state = await t.expectWithin(notReady, {
      withinMs: ttlMs + t.settings.marginMs,
      everyMs: 500,
      what: `the abandoned attempt's sandbox ${shortId(abandoned)} to be gone or NOTREADY within --cache-ttl ${ttlMs} ms`,
    });
    t.step(`the abandoned sandbox ${shortId(abandoned)} is ${state}`);
    if (state === 'GONE') return;
    // A NOTREADY sandbox of an old attempt is what the kubelet stops and removes: that must work.
    await t.expectOk(`StopPodSandbox of the abandoned ${shortId(abandoned)}`, t.cri.stopPod(abandoned));
    await t.expectOk(`RemovePodSandbox of the abandoned ${shortId(abandoned)}`, t.cri.removePod(abandoned));
  },
});
