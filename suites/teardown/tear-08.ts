import { defineCheck } from '../../src/harness/check.js';
import type { CheckContext } from '../../src/harness/context.js';
import { describeEvents, receivedBy } from '../hooks/events.js';
import { deliveryWithinMs } from '../hooks/timing.js';
import { describeReply } from './faulty-teardown.js';

/** Client-deadline attempts per trial. */
const DEADLINE_ATTEMPTS = [1, 2] as const;

export const check = defineCheck({
  id: 'TEAR-08',
  level: 'SHOULD',
  needs: ['nri'],
  trials: true,
  title:
    "A plugin is not disconnected because the CRI client's deadline expired, or the client cancelled, while its hook ran within the plugin timeout",
  contract:
    'containerd/nri pkg/adaptation isFatalError: only a plugin timeout or a closed connection drops a plugin; NRI lifecycle contract (PR 286): a plugin within its request timeout is well-behaved',
  async run(t: CheckContext) {
    // The hook takes a quarter of the plugin timeout; the client gives up at half of that.
    const hookMs = Math.max(2, Math.floor(t.settings.nriRequestTimeoutMs / 4));
    const clientDeadlineMs = Math.floor(hookMs / 2);
    await t.trials(async (trial) => {
      const plugin = await t.nri.plugin({ index: '10', events: ['RemovePodSandbox'] });
      const pods: string[] = [];
      for (const name of [...DEADLINE_ATTEMPTS.map((n) => `deadline-${n}`), 'cancel', 'after']) {
        const podId = await t.cri.runPod(t.make.pod(`tear-08-${trial}-${name}`, { hostNetwork: true }));
        await t.cri.stopPod(podId);
        pods.push(podId);
      }
      const [cancelPod = '', afterPod = ''] = pods.slice(DEADLINE_ATTEMPTS.length);

      // Where the client's deadline lands in the runtime (its own deadline, or the client's cancel) is a
      // race: try it more than once per trial so one lucky landing does not pass a trial.
      for (const deadlinePod of pods.slice(0, DEADLINE_ATTEMPTS.length)) {
        t.step(`RemovePodSandbox with a ${clientDeadlineMs} ms deadline while the hook takes ${hookMs} ms`);
        plugin.fault({
          match: { event: 'RemovePodSandbox', podId: deadlinePod },
          action: { kind: 'delay', ms: hookMs },
        });
        const expired = await t.cri.tryCall(
          'RemovePodSandbox',
          { podSandboxId: deadlinePod },
          { deadlineMs: clientDeadlineMs },
        );
        t.expect(
          plugin.events({ event: 'RemovePodSandbox', podId: deadlinePod }).length > 0,
          `the RemovePodSandbox hook was not running when the client deadline expired (${describeReply(expired)}): the trial tested nothing`,
        );
        const afterDeadline = await plugin.waitDisconnected({ withinMs: hookMs });
        t.expect(
          afterDeadline === undefined,
          `plugin 10 was disconnected after the client deadline expired during its ${hookMs} ms hook (reply: ${describeReply(expired)}): ${afterDeadline?.message ?? ''}`,
        );
      }

      t.step('RemovePodSandbox cancelled by the client while the hook runs');
      const slow = plugin.fault({
        match: { event: 'RemovePodSandbox', podId: cancelPod },
        action: { kind: 'delay', ms: hookMs },
      });
      const abort = new AbortController();
      const cancelled = t.cri.tryCall(
        'RemovePodSandbox',
        { podSandboxId: cancelPod },
        { signal: abort.signal },
      );
      await slow.reached({ withinMs: deliveryWithinMs(t) });
      abort.abort();
      const reply = await cancelled;
      const afterCancel = await plugin.waitDisconnected({ withinMs: hookMs });
      t.expect(
        afterCancel === undefined,
        `plugin 10 was disconnected after the client cancelled during its hook (reply: ${describeReply(reply)}): ${afterCancel?.message ?? ''}`,
      );

      await t.cri.tryCall('RemovePodSandbox', { podSandboxId: afterPod });
      const got = await receivedBy(plugin, { podId: afterPod }, ['RemovePodSandbox'], deliveryWithinMs(t));
      t.expect(
        got.length > 0,
        `after a client deadline and a cancel during its hooks, plugin 10 got ${describeEvents(plugin.events())}; missing RemovePodSandbox of a later pod: the runtime no longer delivers to it`,
      );
    });
  },
});
