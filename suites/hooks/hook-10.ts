import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectCreateRefusedUnseen } from './refused-create.js';

export const check = defineCheck({
  id: 'HOOK-10',
  level: 'MUST',
  needs: ['nri'],
  title: 'CreateContainer into a missing sandbox fails and reaches no plugin',
  contract:
    'NRI lifecycle contract (PR 286): plugins see only containers of existing sandboxes; cri-api v0.32.3 api.proto CreateContainer "creates a new container in specified PodSandbox"',
  clauses: {
    refused: 'CreateContainer into a missing sandbox fails',
    unseen: 'CreateContainer into a missing sandbox reaches no plugin',
  },
  async run(t: CheckContext) {
    const watcher = await t.nri.plugin({ index: '10', events: ['CreateContainer'] });
    const gone = t.make.pod('hook-10');
    const removedId = await t.cri.runPod(gone);
    await t.cri.removePod(removedId);
    await expectCreateRefusedUnseen(
      t,
      watcher,
      gone,
      [
        { what: 'a removed sandbox', podSandboxId: removedId },
        { what: 'a sandbox id that never existed', podSandboxId: [...removedId].reverse().join('') },
      ],
      { refused: 'refused', unseen: 'unseen' },
    );
  },
});
