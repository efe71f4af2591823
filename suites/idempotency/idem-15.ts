import { type CallResult, type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';

/** Pods raced at once in each trial: the race is rare, so each trial gives it several chances. */
const PODS_PER_TRIAL = 3;

function said(r: CallResult<unknown>): string {
  return r.ok ? `OK ${Math.round(r.latencyMs)}ms` : `${r.code} ${Math.round(r.latencyMs)}ms "${r.message}"`;
}

/** Two StopPodSandbox at once on one pod; returns what went wrong ('' when both were OK and it stopped). */
async function raceStops(t: CheckContext, pod: { podId: string; containerId: string }): Promise<string> {
  const stop = () => t.cri.tryCall('StopPodSandbox', { podSandboxId: pod.podId });
  const replies = await Promise.all([stop(), stop()]);
  if (!replies.every((r) => r.ok)) return `${shortId(pod.podId)}: ${replies.map(said).join(' / ')}`;
  const sandbox = await t.cri.podStatus(pod.podId);
  const ctr = await t.cri.containerStatus(pod.containerId);
  if (sandbox.state === 'SANDBOX_NOTREADY' && ctr.state === 'CONTAINER_EXITED') return '';
  return `${shortId(pod.podId)}: both stops returned OK, but the sandbox is ${sandbox.state} and its container ${ctr.state}`;
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
      const names = Array.from({ length: PODS_PER_TRIAL }, (_, i) => `idem-15-${i}`);
      const pods = await Promise.all(names.map((name) => t.cri.runPodWithContainer(name)));
      t.step(`two StopPodSandbox at once on each of ${pods.length} pods`);
      const problems = (await Promise.all(pods.map((pod) => raceStops(t, pod)))).filter((p) => p !== '');
      t.expect(problems.length === 0, `concurrent StopPodSandbox pairs: ${problems.join('; ')}`);
      for (const pod of pods) await t.cri.removePod(pod.podId);
    });
  },
});
