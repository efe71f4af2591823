import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { POD_EVENTS, receivedBy } from '../common/events.js';
import { describeReply } from '../common/replies.js';
import { quietWindowMs } from '../common/timing.js';

export const check = defineCheck({
  id: 'HOOK-12',
  level: 'OBSERVE',
  needs: ['nri'],
  title:
    'After a RunPodSandbox hook error, whether plugins that accepted the pod get StopPodSandbox/RemovePodSandbox for it',
  contract:
    'NRI lifecycle contract (PR 286) leaves the undo of a failed RunPodSandbox open; recorded so plugin authors know whether to expect it',
  clauses: {},
  async run(t: CheckContext) {
    t.step('plugin 10 accepts RunPodSandbox, plugin 20 fails it');
    const accepting = await t.nri.plugin({ index: '10', events: POD_EVENTS });
    const failing = await t.nri.plugin({ index: '20', events: POD_EVENTS });
    const config = t.make.pod('hook-12');
    failing.fault({
      match: { event: 'RunPodSandbox', podName: config.metadata.name },
      action: { kind: 'error', message: 'cri-conform HOOK-12: refusing the pod' },
    });
    const reply = await t.cri.tryRunPod(config);
    t.observe('run-reply', describeReply(reply));
    const match = { podName: config.metadata.name };
    const undo = ['StopPodSandbox', 'RemovePodSandbox'] as const;
    const byAccepting = await receivedBy(accepting, match, undo, quietWindowMs(t));
    const byFailing = failing.events(match);
    for (const event of undo) {
      t.observe(
        `accepting-plugin-got-${event}`,
        byAccepting.some((e) => e.event === event),
      );
      t.observe(
        `failing-plugin-got-${event}`,
        byFailing.some((e) => e.event === event),
      );
    }
    t.observe(
      'accepting-plugin-got-RunPodSandbox',
      byAccepting.some((e) => e.event === 'RunPodSandbox'),
    );
  },
});
