import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectOnePod } from '../common/census.js';
import { heldByDelay, loggedCreates } from '../common/creation-delay.js';
import { describeReply } from '../common/replies.js';
import { DELAY_MS } from '../common/timing.js';
import { identicalReplyViolation, observeReply } from './reservation.js';

export const check = defineCheck({
  id: 'NAME-01',
  level: 'MUST',
  needs: ['creation-delay'],
  title: 'Two identical RunPodSandbox requests in flight at once never yield two sandboxes',
  contract:
    'kubelet: a RunPodSandbox retry can overlap the first request still running in the runtime; containerd CRI reserves the sandbox name (name_namespace_uid_attempt) for the whole RunPodSandbox ("name is reserved for"); CRI-O issue 4221',
  clauses: {
    'one-sandbox':
      'two identical RunPodSandbox requests in flight at once yield one sandbox: the first succeeds, the second gets it or a reservation error',
  },
  async run(t: CheckContext) {
    t.step('two identical RunPodSandbox requests while the creation delay holds the first');
    const delay = t.inject.creationDelay();
    const config = t.make.pod('name-01');
    const deadlineMs = DELAY_MS + t.settings.marginMs;
    await delay.setDelay(DELAY_MS);
    const logged = await loggedCreates(delay);
    t.step(`RunPodSandbox ${config.metadata.name}, held ${DELAY_MS} ms by the ${delay.name}`);
    const first = t.cri.tryRunPod(config, { runtimeHandler: delay.runtimeHandler, deadlineMs });
    // Once the delay holds the first request it has taken the name: only then send the identical second.
    await heldByDelay(t, delay, logged, 'the first RunPodSandbox');
    t.step('the identical RunPodSandbox while the first is in flight');
    const second = await t.cri.tryRunPod(config, { runtimeHandler: delay.runtimeHandler, deadlineMs });
    const holder = await first;
    await delay.setDelay(0);
    t.expect(holder.ok, `the first RunPodSandbox did not succeed: ${describeReply(holder)}`, 'one-sandbox');
    observeReply(t, 'second', second, holder.value);
    const violation = identicalReplyViolation(second, holder.value, deadlineMs);
    t.expect(
      violation === '',
      `identical RunPodSandbox while the first was in flight: ${violation}`,
      'one-sandbox',
    );
    await expectOnePod(
      t,
      config.metadata.name,
      `after two identical requests in flight (second: ${describeReply(second)})`,
      'one-sandbox',
    );
  },
});
