import { defineCheck } from '../../src/harness/check.js';
import type { CheckContext } from '../../src/harness/context.js';
import { expectOnePod } from '../idempotency/census.js';
import { DELAY_MS, heldByDelay, loggedCreates } from '../idempotency/scenarios.js';
import { describeReply, identicalReplyViolation, observeReply, podReply } from './reservation.js';

export const check = defineCheck({
  id: 'NAME-01',
  level: 'MUST',
  needs: ['exclusive'],
  title: 'Two identical RunPodSandbox requests in flight at once never yield two sandboxes',
  contract:
    'kubelet: a RunPodSandbox retry can overlap the first request still running in the runtime; containerd CRI reserves the sandbox name (name_namespace_uid_attempt) for the whole RunPodSandbox ("name is reserved for"); CRI-O issue 4221',
  async run(t: CheckContext) {
    t.step('two identical RunPodSandbox requests while the creation delay holds the first');
    const delay = t.inject.creationDelay();
    const config = t.make.pod('name-01');
    const request = { config, runtimeHandler: delay.runtimeHandler || t.settings.runtimeHandler };
    const deadlineMs = DELAY_MS + t.settings.marginMs;
    await delay.setDelay(DELAY_MS);
    const logged = await loggedCreates(delay);
    t.step(`RunPodSandbox ${config.metadata.name}, held ${DELAY_MS} ms by the ${delay.name}`);
    const first = t.cri.tryCall('RunPodSandbox', request, { deadlineMs }).then(podReply);
    // Once the delay holds the first request it has taken the name: only then send the identical second.
    await heldByDelay(t, delay, logged, 'the first RunPodSandbox');
    t.step('the identical RunPodSandbox while the first is in flight');
    const second = podReply(await t.cri.tryCall('RunPodSandbox', request, { deadlineMs }));
    const holder = await first;
    await delay.setDelay(0);
    t.expect(holder.ok, `the first RunPodSandbox did not succeed: ${describeReply(holder)}`);
    observeReply(t, 'second', second, holder.value);
    const violation = identicalReplyViolation(second, holder.value, true);
    t.expect(violation === '', `identical RunPodSandbox while the first was in flight: ${violation}`);
    await expectOnePod(
      t,
      config.metadata.name,
      `after two identical requests in flight (second: ${describeReply(second)})`,
    );
  },
});
