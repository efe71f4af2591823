import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectOnePod } from '../common/census.js';
import { describeReply } from '../common/replies.js';
import { identicalReplyViolation } from './reservation.js';

export const check = defineCheck({
  id: 'NAME-02',
  level: 'MUST',
  title:
    'An identical RunPodSandbox after the first succeeded returns the same sandbox or an error naming the reservation',
  contract:
    'kubelet: a RunPodSandbox whose reply was lost is sent again with the same metadata; containerd CRI keeps the sandbox name reserved while the sandbox exists ("name is reserved for"); CRI-O issue 4221',
  clauses: {
    'one-sandbox':
      'an identical RunPodSandbox after the first succeeded returns the same sandbox or an error naming the reservation, and one sandbox exists',
  },
  async run(t: CheckContext) {
    t.step('run a pod, then send its RunPodSandbox again unchanged');
    const config = t.make.pod('name-02');
    const podId = await t.cri.runPod(config);
    t.step('the identical RunPodSandbox again');
    const again = await t.cri.tryRunPod(config);
    const violation = identicalReplyViolation(again, podId);
    t.expect(
      violation === '',
      `identical RunPodSandbox after the first succeeded: ${violation}`,
      'one-sandbox',
    );
    await expectOnePod(
      t,
      config.metadata.name,
      `after an identical second request (${describeReply(again)})`,
      'one-sandbox',
    );
  },
});
