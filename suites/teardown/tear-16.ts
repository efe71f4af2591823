import {
  type CallResult,
  type CheckContext,
  defineCheck,
  errorMessage,
  type TestPlugin,
} from '../../src/harness/face.js';
import { receivedBy } from '../common/events.js';
import { type HeldCall, tryHoldDuring, type Unreached } from '../common/holds.js';
import { describeReply } from '../common/replies.js';
import { quietWindowMs, teardownBoundMs } from '../common/timing.js';

/**
 * How long plugin 20 has to be synchronized once the removal's bound is over: NRI's default registration
 * timeout. A runtime that completes the removal within its bound has let go of whatever held the sync back
 * by then. TEAR-16 runs alone, so no other check's creation holds the sync back either: that is what the
 * longer bound of other checks' plugins allows for (nri-control.ts). Past it, with the removal not
 * answered, the runtime has deadlocked, and waiting longer would only delay its restart.
 */
const SYNCHRONIZED_AFTER_BOUND_MS = 5_000;

export const check = defineCheck({
  id: 'TEAR-16',
  level: 'MUST',
  // A runtime with this bug stays wedged after the check (every lifecycle call hangs) until it restarts.
  tags: ['Restart'],
  needs: ['nri', 'stalls-hooks'],
  title:
    'A plugin that registers while a pod with a container is being removed neither blocks the removal nor is left unsynchronized',
  contract:
    'NRI lifecycle contract (PR 286): a plugin never blocks teardown; containerd/nri adaptation: a registering plugin is synchronized, then gets events; kubelet: a deleted pod whose RemovePodSandbox never returns stays Terminating',
  clauses: {
    'removal-completes': 'a RemovePodSandbox during which a plugin registers completes within the bound',
    'plugin-synchronized': 'a plugin that registers during a removal is synchronized',
  },
  async run(t: CheckContext) {
    const hookMs = Math.floor(t.settings.nriRequestTimeoutMs / 2);
    const holder = await t.nri.plugin({ index: '10', events: ['StopPodSandbox', 'RemovePodSandbox'] });
    let held = await removalHeldIn(t, holder, 'StopPodSandbox', 'tear-16', hookMs);
    if ('unreached' in held.call) {
      // CRI-O's removal stops the pod without its Stop hook: its Remove hook is the one inside the removal.
      const sent = await receivedBy(holder, { podId: held.podId }, ['RemovePodSandbox'], quietWindowMs(t));
      t.require(
        sent.some((e) => e.event === 'RemovePodSandbox'),
        `RemovePodSandbox answered (${describeReply(held.call.unreached)}) before plugin 10 got any hook of the pod: the check tested nothing`,
      );
      t.observe('held-hook', 'RemovePodSandbox (the removal sent no StopPodSandbox hook)');
      held = await removalHeldIn(t, holder, 'RemovePodSandbox', 'tear-16-remove', hookMs);
    } else t.observe('held-hook', 'StopPodSandbox');
    const { call } = held;
    if ('unreached' in call)
      t.require(
        false,
        `RemovePodSandbox answered (${describeReply(call.unreached)}) before its hooks ran: the check tested nothing`,
      );

    t.step('plugin 20 registers while the removal waits in that hook');
    const atRisk = t.mayWedgeRuntime(
      'its TEAR-16 had a plugin register during a held RemovePodSandbox, which deadlocks some runtimes until they restart',
    );
    const registration = t.nri
      .plugin({
        index: '20',
        events: ['RunPodSandbox'],
        registeredWithinMs: teardownBoundMs(t) + SYNCHRONIZED_AFTER_BOUND_MS,
      })
      .then(() => undefined, errorMessage);
    const [reply, notRegistered] = await Promise.all([call.reply, registration]);
    if (!reply.ok || notRegistered !== undefined) {
      t.step('restart the runtime first: a runtime deadlocked here stays so until it restarts');
      t.observe('restart took ms', await t.restartRuntime());
    }
    atRisk();
    // grpc-go may end the call with its own copy of the deadline, as CANCELLED, just before the client's.
    const timedOut =
      !reply.ok && (reply.code === 'DEADLINE_EXCEEDED' || reply.latencyMs >= teardownBoundMs(t));
    const deadlock = timedOut && notRegistered !== undefined;
    t.expect(
      reply.ok,
      `RemovePodSandbox ${timedOut ? `did not complete within ${teardownBoundMs(t)} ms` : 'failed'} (${describeReply(reply)}) after plugin 20 registered during it${notRegistered ? `, and plugin 20 was never synchronized (${notRegistered})` : ''}${deadlock ? ': the runtime deadlocks teardown against plugin registration' : ''}`,
      'removal-completes',
    );
    t.expect(
      notRegistered === undefined,
      `plugin 20, registering during a pod's removal, was never synchronized: ${notRegistered ?? ''} (removal: ${describeReply(reply)})`,
      'plugin-synchronized',
    );
  },
});

/**
 * A fresh pod with a running container, removed with its `hook` delayed `hookMs` at `holder`. The call has
 * a deadline of the bound: any later answer fails the check, so it need not wait longer.
 */
async function removalHeldIn(
  t: CheckContext,
  holder: TestPlugin,
  hook: 'StopPodSandbox' | 'RemovePodSandbox',
  name: string,
  hookMs: number,
): Promise<{ podId: string; call: HeldCall<unknown> | Unreached<unknown> }> {
  const { podId } = await t.cri.runPodWithContainer(name);
  t.step(`RemovePodSandbox of the running pod, with its ${hook} hook held ${hookMs} ms by plugin 10`);
  const remove = (): Promise<CallResult<unknown>> =>
    t.cri.tryCall('RemovePodSandbox', { podSandboxId: podId }, { deadlineMs: teardownBoundMs(t) });
  const call = await tryHoldDuring(t, holder, hook, { podId }, remove, { kind: 'delay', ms: hookMs });
  return { podId, call };
}
