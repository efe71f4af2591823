import { defineCheck } from '../../src/harness/check.js';
import type { CheckContext } from '../../src/harness/context.js';
import { expectOnePod } from '../idempotency/census.js';
import { describeReply, identicalReplyViolation, podReply } from './reservation.js';

export const check = defineCheck({
  id: 'NAME-02',
  level: 'MUST',
  title:
    'An identical RunPodSandbox after the first succeeded returns the same sandbox or an error naming the reservation',
  contract:
    'kubelet: a RunPodSandbox whose reply was lost is sent again with the same metadata; containerd CRI keeps the sandbox name reserved while the sandbox exists ("name is reserved for"); CRI-O issue 4221',
  async run(t: CheckContext) {
    t.step('run a pod, then send its RunPodSandbox again unchanged');
    const config = t.make.pod('name-02');
    const request = { config, runtimeHandler: t.settings.runtimeHandler };
    const podId = await t.cri.runPod(config);
    t.step('the identical RunPodSandbox again');
    const again = podReply(await t.cri.tryCall('RunPodSandbox', request));
    const violation = identicalReplyViolation(again, podId, false);
    t.expect(violation === '', `identical RunPodSandbox after the first succeeded: ${violation}`);
    await expectOnePod(
      t,
      config.metadata.name,
      `after an identical second request (${describeReply(again)})`,
    );
  },
});
