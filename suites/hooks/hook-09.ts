import { type CheckContext, defineCheck, notYet } from '../../src/harness/face.js';
import { expectInOrder } from '../common/events.js';
import { deliveryWithinMs } from '../common/timing.js';

export const check = defineCheck({
  id: 'HOOK-09',
  level: 'MUST',
  needs: ['nri'],
  title: 'A container that exits by itself gets StopContainer before RemoveContainer',
  contract:
    'NRI lifecycle (containerd/nri README "Container events": StopContainer precedes RemoveContainer for every container; lifecycle contract PR 286)',
  clauses: {
    'stop-before-remove': 'a container that exited by itself gets StopContainer before RemoveContainer',
  },
  async run(t: CheckContext) {
    const plugin = await t.nri.plugin({ index: '10', events: ['StopContainer', 'RemoveContainer'] });
    const { containerId } = await t.cri.runPodWithContainer('hook-09', {
      command: ['sh', '-c', 'exit 3'],
      exitsByItself: true,
    });
    await t.poll(
      async () => {
        const { state } = await t.cri.containerStatus(containerId);
        return state === 'CONTAINER_EXITED' || notYet(state);
      },
      {
        withinMs: t.settings.callTimeoutMs,
        what: 'the container to exit by itself',
      },
    );
    t.step('remove the exited container without stopping it, as the kubelet does before a restart');
    await t.cri.removeContainer(containerId);
    await expectInOrder(
      t,
      plugin,
      { containerId },
      ['StopContainer', 'RemoveContainer'],
      deliveryWithinMs(t),
      'stop-before-remove',
    );
  },
});
