import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { describeEvents } from '../common/events.js';
import { deliveryWithinMs, quietWindowMs } from '../common/timing.js';

export const check = defineCheck({
  id: 'HOOK-06',
  level: 'MUST',
  needs: ['nri'],
  title: 'A second StopPodSandbox succeeds and delivers no second StopPodSandbox event',
  contract:
    'cri-api v0.32.3 api.proto StopPodSandbox: "This call is idempotent, and must not return an error if all relevant resources have already been reclaimed"; NRI lifecycle contract (PR 286): one StopPodSandbox per pod',
  clauses: {
    'second-stop-ok': 'a second StopPodSandbox of a stopped pod returns OK',
    'one-event': 'the second StopPodSandbox delivers no second StopPodSandbox event',
  },
  async run(t: CheckContext) {
    const plugin = await t.nri.plugin({ index: '10', events: ['StopPodSandbox'] });
    const podId = await t.cri.runPod(t.make.pod('hook-06'));
    await t.cri.stopPod(podId);
    await plugin.waitFor(
      { event: 'StopPodSandbox', podId },
      { withinMs: deliveryWithinMs(t), what: 'the StopPodSandbox event of the first stop' },
    );
    t.step('stop the stopped pod again');
    await t.expectOk('the second StopPodSandbox', t.cri.stopPod(podId), 'second-stop-ok');
    const once = await t
      .holdsFor(
        () => plugin.events({ event: 'StopPodSandbox', podId }).length === 1,
        quietWindowMs(t),
        'one Stop event',
        'one-event',
      )
      .then(
        () => true,
        () => false,
      );
    t.expect(
      once,
      `plugin 10 got ${describeEvents(plugin.events({ podId }))}: the second StopPodSandbox call delivered another StopPodSandbox event`,
      'one-event',
    );
  },
});
