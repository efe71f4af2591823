import { type CheckContext, defineCheck, type FaultAction, shortId } from '../../src/harness/face.js';
import { describeEvents, POD_EVENTS, receivedBy } from '../common/events.js';
import { boundedCallDeadlineMs, deliveryWithinMs, teardownBoundMs } from '../common/timing.js';
import { registerAgain } from './faulty-teardown.js';

const WAYS_TO_BE_DROPPED: readonly FaultAction[] = [{ kind: 'hang' }, { kind: 'crash' }];

export const check = defineCheck({
  id: 'TEAR-07',
  level: 'MUST',
  needs: ['nri'],
  title:
    'A plugin the runtime disconnected (after a hang or a crash) can register again and then receives the events of new pods',
  contract:
    'containerd/nri pkg/adaptation: external plugins connect to the NRI socket at any time and are registered, configured and synchronized on connect; NRI lifecycle contract (PR 286)',
  async run(t: CheckContext) {
    const plugin = await t.nri.plugin({ index: '10', events: POD_EVENTS });
    for (const action of WAYS_TO_BE_DROPPED) {
      const podId = await t.cri.runPod(t.make.pod(`tear-07-${action.kind}`));
      plugin.fault({ match: { event: 'StopPodSandbox', podId }, action });
      t.step(`plugin 10 answers StopPodSandbox with ${action.kind}`);
      await t.cri.tryCall(
        'StopPodSandbox',
        { podSandboxId: podId },
        { deadlineMs: boundedCallDeadlineMs(t) },
      );
      const cause = await plugin.waitDisconnected({ withinMs: teardownBoundMs(t) });
      t.observe(`disconnected-after-${action.kind}`, cause ? cause.message : 'no');

      await registerAgain(t, plugin, `its ${action.kind} on StopPodSandbox`);
      const next = await t.cri.runPod(t.make.pod(`tear-07-after-${action.kind}`));
      const got = await receivedBy(plugin, { podId: next }, ['RunPodSandbox'], deliveryWithinMs(t));
      t.expect(
        got.length > 0,
        `after its ${action.kind} and registering again, plugin 10 got ${describeEvents(plugin.events())}; missing RunPodSandbox of the new pod ${shortId(next)}`,
      );
    }
  },
});
