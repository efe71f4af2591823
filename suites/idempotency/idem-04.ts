import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { DELAY_MS } from '../common/timing.js';
import { claimAndRemove } from './claim.js';
import { timeOutOnSlowHandler } from './scenarios.js';

export const check = defineCheck({
  id: 'IDEM-04',
  level: 'SHOULD',
  needs: ['slow-runtime'],
  title:
    'A timed-out sandbox held for reuse is neither reported READY by ListPodSandbox or PodSandboxStatus nor usable by CreateContainer',
  contract:
    'CRI-O issue 4221 (ResourceCache): a cached sandbox is not published until the retry claims it; the kubelet treats a READY sandbox it never got an id for as an orphan, and a container created in it would run in a pod nobody owns',
  async run(t: CheckContext) {
    const timedOut = await timeOutOnSlowHandler(t, 'idem-04');
    const heldId = timedOut.builtId;
    const name = timedOut.config.metadata.name;
    const notReady = async () => {
      const listed = await t.cri.listPods({ name, state: 'SANDBOX_READY' });
      // Hidden (NOT_FOUND) or not READY; any other status error is no proof and ends the check in ERROR.
      return listed.length === 0 && (await t.cri.podStateOrGone(heldId)) !== 'SANDBOX_READY';
    };
    // From the timeout until well after the build finished: the held sandbox never shows READY.
    await t.holdsFor(
      notReady,
      DELAY_MS,
      `the timed-out sandbox ${shortId(heldId)} (or any sandbox named ${name}) to stay un-READY while nobody claimed it`,
    );
    const create = await t.cri.tryCall('CreateContainer', {
      podSandboxId: heldId,
      config: t.make.container('intruder'),
      sandboxConfig: timedOut.config,
    });
    t.expect(
      !create.ok,
      `CreateContainer into the unclaimed timed-out sandbox ${shortId(heldId)} succeeded (container ${create.ok ? shortId(create.value.containerId) : ''})`,
    );
    await claimAndRemove(t, timedOut);
  },
});
