import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectOneContainer } from '../common/census.js';
import { describeReply } from '../common/replies.js';
import { SharedPlugin } from '../common/shared-plugin.js';
import { containerReply, identicalReplyViolation, observeReply } from './reservation.js';

export const check = defineCheck({
  id: 'NAME-06',
  level: 'MUST',
  needs: ['nri', 'stalls-hooks', 'holds-in-lane'],
  title:
    'Identical CreateContainer requests in one sandbox, in flight at once or after the first succeeded, never yield two containers',
  contract:
    'kubelet: a CreateContainer retry can overlap or follow the first request; containerd CRI reserves the container name (name_sandbox_namespace_uid_attempt) for the whole CreateContainer and while the container exists; CRI-O issue 4221',
  clauses: {
    'one-container':
      'identical CreateContainer requests in one sandbox, in flight at once or after the first succeeded, yield one container',
  },
  async run(t: CheckContext) {
    t.step('hold one CreateContainer in its NRI hook and send it again; then once more after it succeeded');
    const plugin = new SharedPlugin(t, { index: '10', events: ['CreateContainer'] });
    const podConfig = t.make.pod('name-06');
    const podId = await t.cri.runPod(podConfig);
    const config = t.make.container('workload');
    const request = { podSandboxId: podId, config, sandboxConfig: podConfig };
    const deadlineMs = t.settings.nriRequestTimeoutMs + t.settings.marginMs;
    // The hold and the identical request beside it take one turn of the hook lane: the runtime delivers
    // hooks one at a time, so no other check's hold may meet them (shared-plugin.ts for the plugin).
    const { first, second } = await t.oneAtATime('held CreateContainer hook', async () => {
      const hold = (await plugin.connected()).fault({
        match: { event: 'CreateContainer', podId, containerName: config.metadata.name },
        action: { kind: 'hang' },
        times: 1,
      });
      t.step('CreateContainer workload, held in the CreateContainer hook');
      const first = t.cri.tryCall('CreateContainer', request, { deadlineMs }).then(containerReply);
      try {
        await hold.reached({ withinMs: 5_000 });
        t.step('the identical CreateContainer while the first is held');
        const second = t.cri.tryCall('CreateContainer', request, { deadlineMs }).then(containerReply);
        await t.pause(300, 'give the identical request time to be refused, or to queue behind the held hook');
        return { first, second };
      } finally {
        hold.release();
      }
    });
    const [holder, concurrent] = await Promise.all([first, second]);
    t.expect(
      holder.ok,
      `the first CreateContainer did not succeed: ${describeReply(holder)}`,
      'one-container',
    );
    observeReply(t, 'concurrent', concurrent, holder.value);
    const inFlight = identicalReplyViolation(concurrent, holder.value, deadlineMs);
    t.expect(
      inFlight === '',
      `identical CreateContainer while the first was in flight: ${inFlight}`,
      'one-container',
    );
    await expectOneContainer(t, podId, 'workload', `after two identical requests in flight`, 'one-container');

    t.step('the identical CreateContainer after the first succeeded');
    const later = containerReply(await t.cri.tryCall('CreateContainer', request));
    const after = identicalReplyViolation(later, holder.value);
    t.expect(after === '', `identical CreateContainer after the first succeeded: ${after}`, 'one-container');
    await expectOneContainer(
      t,
      podId,
      'workload',
      `after a third identical request (${describeReply(later)})`,
      'one-container',
    );
  },
});
