import { defineCheck } from '../../src/harness/check.js';
import type { CallResult, CheckContext } from '../../src/harness/context.js';
import { short } from './census.js';

function said(r: CallResult<unknown>): string {
  return r.ok ? `OK ${Math.round(r.latencyMs)}ms` : `${r.code} ${Math.round(r.latencyMs)}ms "${r.message}"`;
}

export const check = defineCheck({
  id: 'IDEM-15',
  level: 'SHOULD',
  trials: true,
  title:
    'Two concurrent StopPodSandbox calls on one sandbox both return OK, and the sandbox ends stopped and removable',
  contract:
    'cri-api v0.32.3 api.proto StopPodSandbox "This call is idempotent ... multiple StopPodSandbox calls are expected"; kubelet: a timed-out StopPodSandbox is retried while the first may still run',
  async run(t: CheckContext) {
    await t.trials(async () => {
      const { podId, containerId } = await t.cri.runPodWithContainer('idem-15');
      t.step(`two StopPodSandbox on ${short(podId)} at once`);
      const replies = await Promise.all([
        t.cri.tryCall('StopPodSandbox', { podSandboxId: podId }),
        t.cri.tryCall('StopPodSandbox', { podSandboxId: podId }),
      ]);
      t.expect(
        replies.every((r) => r.ok),
        `two concurrent StopPodSandbox on ${short(podId)}: ${replies.map(said).join(' / ')}`,
      );
      const pod = await t.cri.podStatus(podId);
      const ctr = await t.cri.containerStatus(containerId);
      t.expect(
        pod.state === 'SANDBOX_NOTREADY' && ctr.state === 'CONTAINER_EXITED',
        `after both stops returned, sandbox ${short(podId)} is ${pod.state} and its container ${ctr.state}`,
      );
      await t.cri.removePod(podId);
    });
  },
});
