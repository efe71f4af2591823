import { type CallResult, type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';

export const check = defineCheck({
  id: 'IDEM-11',
  level: 'MUST',
  title:
    'StopContainer, RemoveContainer, StopPodSandbox and RemovePodSandbox return OK when repeated and when the object is already stopped or removed',
  contract:
    'cri-api v0.32.3 api.proto: StopContainer "must not return an error if the container has already been stopped"; RemoveContainer "must not return an error if the container has already been removed"; StopPodSandbox "must not return an error if all relevant resources have already been reclaimed ... multiple StopPodSandbox calls are expected"; RemovePodSandbox "must not return an error if the sandbox has already been removed"',
  clauses: {
    idempotent:
      'StopContainer, RemoveContainer, StopPodSandbox and RemovePodSandbox return OK when repeated and on stopped or removed objects',
  },
  async run(t: CheckContext) {
    t.step('stop and remove a container and its pod, each call twice, then once more on the removed ids');
    const { podId, containerId } = await t.cri.runPodWithContainer('idem-11');
    const ctr = { containerId };
    const pod = { podSandboxId: podId };
    const steps: [string, () => Promise<CallResult<unknown>>][] = [
      ['StopContainer', () => t.cri.tryCall('StopContainer', { ...ctr, timeout: '0' })],
      [
        'StopContainer on the stopped container',
        () => t.cri.tryCall('StopContainer', { ...ctr, timeout: '0' }),
      ],
      ['RemoveContainer', () => t.cri.tryCall('RemoveContainer', ctr)],
      ['RemoveContainer on the removed container', () => t.cri.tryCall('RemoveContainer', ctr)],
      [
        'StopContainer on the removed container',
        () => t.cri.tryCall('StopContainer', { ...ctr, timeout: '0' }),
      ],
      ['StopPodSandbox', () => t.cri.tryCall('StopPodSandbox', pod)],
      ['StopPodSandbox on the stopped sandbox', () => t.cri.tryCall('StopPodSandbox', pod)],
      ['RemovePodSandbox', () => t.cri.tryCall('RemovePodSandbox', pod)],
      ['RemovePodSandbox on the removed sandbox', () => t.cri.tryCall('RemovePodSandbox', pod)],
      ['StopPodSandbox on the removed sandbox', () => t.cri.tryCall('StopPodSandbox', pod)],
    ];
    // Every call is asserted, those on removed ids included (the catalogue's "already removed" clause).
    const errors: string[] = [];
    for (const [what, call] of steps) {
      t.step(what);
      const reply = await call();
      if (!reply.ok) errors.push(`${what}: ${reply.code} "${reply.message}"`);
    }
    t.expect(
      errors.length === 0,
      `pod ${shortId(podId)}, container ${shortId(containerId)}: ${errors.join('; ')}`,
      'idempotent',
    );
  },
});
