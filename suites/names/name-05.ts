import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { judgeReleases, releasedAfterFailure } from './reservation.js';

const NO_SUCH_HANDLER = 'cri-conform-no-such-handler';

export const check = defineCheck({
  id: 'NAME-05',
  level: 'MUST',
  // The NRI variant faults a hook: it must never share the NRI socket with another check's plugins.
  needs: ['nri'],
  title:
    'A RunPodSandbox that failed for a non-timeout reason (unknown runtime handler, NRI Run hook error) releases the name at once',
  contract:
    'kubelet: after a failed RunPodSandbox the next pod sync sends the same metadata again; containerd CRI releases the name reservation when RunPodSandbox fails; NRI: a plugin error on RunPodSandbox fails the request',
  clauses: {
    released: 'a RunPodSandbox that failed for a non-timeout reason releases the name at once',
  },
  async run(t: CheckContext) {
    t.step('fail a RunPodSandbox on purpose, then send the valid request with the same metadata');
    const config = t.make.pod('name-05');
    const byHandler = await releasedAfterFailure(
      t,
      'unknown runtime handler',
      async () => await t.cri.tryRunPod(config, { runtimeHandler: NO_SUCH_HANDLER }),
      async () => await t.cri.tryRunPod(config),
    );

    const plugin = await t.nri.plugin({ index: '10', events: ['RunPodSandbox'] });
    const hooked = t.make.pod('name-05-hook');
    plugin.fault({
      match: { event: 'RunPodSandbox', podName: hooked.metadata.name },
      action: { kind: 'error', message: 'cri-conform NAME-05: injected RunPodSandbox hook error' },
      times: 1,
    });
    const send = async () => await t.cri.tryRunPod(hooked);
    const byHook = await releasedAfterFailure(t, 'NRI RunPodSandbox hook error', send, send);
    judgeReleases(t, [byHandler, byHook], 'released');
  },
});
