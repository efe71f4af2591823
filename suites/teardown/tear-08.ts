import { type CallOpts, type CallResult, type CheckContext, defineCheck } from '../../src/harness/face.js';
import { describeEvents, receivedBy } from '../common/events.js';
import { tryHoldDuring } from '../common/holds.js';
import { describeReply } from '../common/replies.js';
import { deliveryWithinMs } from '../common/timing.js';

export const check = defineCheck({
  id: 'TEAR-08',
  level: 'SHOULD',
  needs: ['nri', 'stalls-hooks'],
  trials: {
    scale: 2,
    why: "whether the runtime's code sees an expired deadline as DeadlineExceeded or as Canceled can be decided by its gRPC server's own timers; a runtime that drops the plugin on only one of them fails in a minority of attempts",
  },
  title:
    "A plugin is not disconnected because the CRI client's deadline expired, or the client cancelled, while its hook ran within the plugin timeout",
  contract:
    'containerd/nri pkg/adaptation isFatalError: only a plugin timeout or a closed connection drops a plugin; NRI lifecycle contract (PR 286): a plugin within its request timeout is well-behaved',
  async run(t: CheckContext) {
    // The hook takes a quarter of the plugin timeout; the client gives up at half of that.
    const hookMs = Math.max(4, Math.floor(t.settings.nriRequestTimeoutMs / 4));
    const clientDeadlineMs = Math.floor(hookMs / 2);
    await t.trials(async (trial) => {
      const plugin = await t.nri.plugin({ index: '10', events: ['RemovePodSandbox'] });
      const podOf = async (name: string) => {
        const podId = await t.cri.runPod(t.make.pod(`tear-08-${trial}-${name}`, { hostNetwork: true }));
        await t.cri.stopPod(podId);
        return podId;
      };
      const [racePod, latePod, cancelPod, afterPod] = await Promise.all([
        podOf('deadline'),
        podOf('late-cancel'),
        podOf('cancel'),
        podOf('after'),
      ]);
      /** RemovePodSandbox of `podId` whose hook takes hookMs; `during` runs once the hook is running. */
      const removeDuringHook = async (podId: string, opts: CallOpts, during: () => void) => {
        const attempt = await tryHoldDuring(
          t,
          plugin,
          'RemovePodSandbox',
          { podId },
          () => t.cri.tryCall('RemovePodSandbox', { podSandboxId: podId }, opts),
          { kind: 'delay', ms: hookMs },
        );
        if ('unreached' in attempt)
          t.require(
            false,
            `RemovePodSandbox answered (${describeReply(attempt.unreached)}) before its hook ran: the trial tested nothing`,
          );
        during();
        return attempt.reply;
      };
      const expectStillConnected = async (after: string, reply: CallResult<unknown>) => {
        const cause = await plugin.waitDisconnected({ withinMs: hookMs });
        t.expect(
          cause === undefined,
          `plugin 10 was disconnected after ${after} during its ${hookMs} ms hook (reply: ${describeReply(reply)}): ${cause?.message ?? ''}`,
        );
      };

      t.step(`RemovePodSandbox with a ${clientDeadlineMs} ms deadline while the hook takes ${hookMs} ms`);
      const raced = await removeDuringHook(racePod, { deadlineMs: clientDeadlineMs }, () => undefined);
      await expectStillConnected('the client deadline expired', raced);

      // The request carries the deadline; the client cancels only later, so the runtime's own copy of the
      // deadline, not the client's cancel, is what ends the call (a kubelet under CPU pressure cancels late).
      t.step(
        `the same, with the client's cancel held back until ${Math.floor(hookMs / 4)} ms after the deadline`,
      );
      const late = await removeDuringHook(
        latePod,
        { deadlineMs: clientDeadlineMs, cancelLateByMs: Math.floor(hookMs / 4) },
        () => undefined,
      );
      await expectStillConnected("the runtime's copy of the client deadline expired", late);

      t.step('RemovePodSandbox cancelled by the client while the hook runs');
      const abort = new AbortController();
      const cancelled = await removeDuringHook(cancelPod, { signal: abort.signal }, () => abort.abort());
      await expectStillConnected('the client cancelled', cancelled);

      await t.cri.tryCall('RemovePodSandbox', { podSandboxId: afterPod });
      const got = await receivedBy(plugin, { podId: afterPod }, ['RemovePodSandbox'], deliveryWithinMs(t));
      t.expect(
        got.length > 0,
        `after client deadlines and a cancel during its hooks, plugin 10 got ${describeEvents(plugin.events())}; missing RemovePodSandbox of a later pod: the runtime no longer delivers to it`,
      );
    });
  },
});
