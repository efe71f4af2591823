import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { describeEvents, first, POD_EVENTS, receivedBy } from '../common/events.js';
import { describeReply } from '../common/replies.js';
import { deliveryWithinMs } from '../common/timing.js';

export const check = defineCheck({
  id: 'HOOK-13',
  level: 'OBSERVE',
  needs: ['nri'],
  title:
    'Whether RemovePodSandbox of a running pod (no StopPodSandbox before it) delivers StopPodSandbox to plugins before RemovePodSandbox',
  contract:
    'cri-api v0.32.3 api.proto RemovePodSandbox stops what still runs itself, and the NRI lifecycle contract (PR 286) names Run, Stop, Remove, but neither says whether such a removal sends the Stop hook (containerd does; CRI-O server/sandbox_remove.go sends only RemovePodSandbox); recorded because a plugin that releases resources on StopPodSandbox leaks them where it is not sent',
  clauses: {},
  async run(t: CheckContext) {
    const plugin = await t.nri.plugin({ index: '10', events: POD_EVENTS });
    const { podId } = await t.cri.runPodWithContainer('hook-13');
    t.step('RemovePodSandbox of the running pod, with no StopPodSandbox before it');
    const reply = await t.cri.tryCall('RemovePodSandbox', { podSandboxId: podId });
    t.observe('remove-reply', describeReply(reply));
    // The Remove event is owed once the call returned; a Stop event sent in the removal comes before it.
    const got = await receivedBy(plugin, { podId }, ['RemovePodSandbox'], deliveryWithinMs(t));
    const stop = first(got, 'StopPodSandbox');
    const remove = first(got, 'RemovePodSandbox');
    t.observe('events', describeEvents(got));
    t.observe(
      'stop-hook-before-remove',
      stop !== undefined && (remove === undefined || stop.seq < remove.seq),
    );
  },
});
