import { type CheckContext, defineCheck, errorMessage } from '../../src/harness/face.js';
import { tryHoldDuring } from '../common/holds.js';
import { describeReply } from '../common/replies.js';
import { teardownBoundMs } from '../common/timing.js';

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
  async run(t: CheckContext) {
    const hookMs = Math.floor(t.settings.nriRequestTimeoutMs / 2);
    const holder = await t.nri.plugin({ index: '10', events: ['StopPodSandbox'] });
    const podConfig = t.make.pod('tear-16');
    const podId = await t.cri.runPod(podConfig);
    await t.cri.startContainer(await t.cri.createContainer(podId, t.make.container('workload'), podConfig));

    t.step(
      `RemovePodSandbox of the running pod, with its StopPodSandbox hook held ${hookMs} ms by plugin 10`,
    );
    const held = await tryHoldDuring(
      t,
      holder,
      'StopPodSandbox',
      { podId },
      () =>
        // Any answer later than the bound fails the check, so the call need not wait longer.
        t.cri.tryCall('RemovePodSandbox', { podSandboxId: podId }, { deadlineMs: teardownBoundMs(t) }),
      { kind: 'delay', ms: hookMs },
    );
    if ('unreached' in held)
      t.require(
        false,
        `RemovePodSandbox answered (${describeReply(held.unreached)}) before its StopPodSandbox hook ran: the check tested nothing`,
      );

    t.step('plugin 20 registers while the removal waits in that hook');
    const registration = t.nri
      .plugin({ index: '20', events: ['RunPodSandbox'] })
      .then(() => undefined, errorMessage);
    const [reply, notRegistered] = await Promise.all([held.reply, registration]);
    if (!reply.ok || notRegistered !== undefined) {
      t.step('restart the runtime first: a runtime deadlocked here stays so until it restarts');
      t.observe('restart took ms', await t.restartRuntime());
    }
    // grpc-go may end the call with its own copy of the deadline, as CANCELLED, just before the client's.
    const timedOut =
      !reply.ok && (reply.code === 'DEADLINE_EXCEEDED' || reply.latencyMs >= teardownBoundMs(t));
    const deadlock = timedOut && notRegistered !== undefined;
    t.expect(
      reply.ok,
      `RemovePodSandbox ${timedOut ? `did not complete within ${teardownBoundMs(t)} ms` : 'failed'} (${describeReply(reply)}) after plugin 20 registered during it${notRegistered ? `, and plugin 20 was never synchronized (${notRegistered})` : ''}${deadlock ? ': the runtime deadlocks teardown against plugin registration' : ''}`,
    );
    t.expect(
      notRegistered === undefined,
      `plugin 20, registering during a pod's removal, was never synchronized: ${notRegistered ?? ''} (removal: ${describeReply(reply)})`,
    );
  },
});
