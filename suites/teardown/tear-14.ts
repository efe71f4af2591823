import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { tryHoldDuring } from '../common/holds.js';
import { describeReply } from '../common/replies.js';
import { finishTeardown, leftoversOf } from './leaks.js';

/** Plugin 10 must see a creation hook before plugin 20 fails it; HOOK-07 is the check for that order. */
const OUT_OF_ORDER =
  'plugin 20 failed the creation before plugin 10 saw its hook, so nothing half-made could be snapshotted: plugins are not called in index order (see HOOK-07)';

const REFUSE = { kind: 'error', message: 'cri-conform TEAR-14: this plugin refuses the creation' } as const;

export const check = defineCheck({
  id: 'TEAR-14',
  level: 'MUST',
  tags: ['Node'],
  needs: ['nri'],
  trials: true,
  title:
    "A sandbox or container whose creation a plugin failed leaves nothing behind: not in CRI, not on the host, not in the runtime's own records",
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286): a plugin may fail RunPodSandbox and CreateContainer, and the runtime rolls the creation back; kubelet PodResourcesAreReclaimed',
  async run(t: CheckContext) {
    await t.trials(async (trial) => {
      // Plugin 10 holds the hook long enough to snapshot the half-made object; plugin 20 then fails it.
      const holder = await t.nri.plugin({ index: '10', events: ['RunPodSandbox', 'CreateContainer'] });
      const refuser = await t.nri.plugin({ index: '20', events: ['RunPodSandbox', 'CreateContainer'] });

      const podConfig = t.make.pod(`tear-14-${trial}-refused`);
      const podName = podConfig.metadata.name;
      refuser.fault({ match: { event: 'RunPodSandbox', podName }, action: REFUSE });
      const run = await tryHoldDuring(t, holder, 'RunPodSandbox', { podName }, () =>
        t.cri.tryRunPod(podConfig),
      );
      if ('unreached' in run) t.skip(OUT_OF_ORDER);
      const podSnapshot = await t.host.snapshot(run.held.pod.id);
      run.hold.release();
      const ran = await run.reply;
      t.expect(!ran.ok, `RunPodSandbox succeeded although plugin 20 failed its hook: ${describeReply(ran)}`);
      const listed = await t.cri.listPods({ name: podName });
      t.expect(
        listed.length === 0,
        `the failed sandbox is still listed: ${listed.map((p) => `${shortId(p.id)}/${p.state}`).join(', ')}`,
      );
      const podLeaks = await leftoversOf(t, podSnapshot);
      t.expect(podLeaks === '', `after RunPodSandbox failed in a plugin, the host still holds ${podLeaks}`);

      const hostConfig = t.make.pod(`tear-14-${trial}-host`);
      const podId = await t.cri.runPod(hostConfig);
      refuser.fault({ match: { event: 'CreateContainer', podId }, action: REFUSE });
      const config = t.make.container('refused');
      const create = await tryHoldDuring(t, holder, 'CreateContainer', { podId }, () =>
        t.cri.tryCall('CreateContainer', { podSandboxId: podId, config, sandboxConfig: hostConfig }),
      );
      if ('unreached' in create) t.skip(OUT_OF_ORDER);
      const ctrId = create.held.container?.id ?? '';
      const ctrSnapshot = await t.host.snapshot(podId, ctrId === '' ? [] : [ctrId]);
      create.hold.release();
      const created = await create.reply;
      t.expect(
        !created.ok,
        `CreateContainer succeeded although plugin 20 failed its hook: ${describeReply(created)}`,
      );
      const ctrs = await t.cri.listContainers({ podId });
      t.expect(
        ctrs.length === 0,
        `the failed container is still listed: ${ctrs.map((c) => `${c.name}/${c.state}`).join(', ')}`,
      );
      const failed = await finishTeardown(t, podId);
      t.expect(failed === '', `removing the pod of the failed container failed: ${failed}`);
      const ctrLeaks = await leftoversOf(t, ctrSnapshot);
      t.expect(
        ctrLeaks === '',
        `after CreateContainer failed in a plugin and its pod was removed, the host still holds ${ctrLeaks}`,
      );
    });
  },
});
