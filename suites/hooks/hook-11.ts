import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectCreateRefusedUnseen } from './refused-create.js';

export const check = defineCheck({
  id: 'HOOK-11',
  level: 'SHOULD',
  needs: ['nri'],
  title: 'CreateContainer into a stopped sandbox fails and reaches no plugin',
  contract:
    'cri-api v0.32.3 api.proto StopPodSandbox stops "any running process that is part of the sandbox"; containerd/cri PR 1000 review: a stopping sandbox must not take new containers; NRI lifecycle contract (PR 286)',
  clauses: {
    refused: 'CreateContainer into a stopped sandbox fails',
    unseen: 'CreateContainer into a stopped sandbox reaches no plugin',
  },
  async run(t: CheckContext) {
    const config = t.make.pod('hook-11');
    const stoppedId = await t.cri.runPod(config);
    await t.cri.stopPod(stoppedId);
    const watcher = await t.nri.plugin({ index: '10', events: ['CreateContainer'] });
    await expectCreateRefusedUnseen(
      t,
      watcher,
      config,
      [{ what: 'a stopped sandbox', podSandboxId: stoppedId }],
      { refused: 'refused', unseen: 'unseen' },
    );
  },
});
