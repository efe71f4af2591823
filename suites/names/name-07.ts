import { type CheckContext, type ContainerConfig, defineCheck, shortId } from '../../src/harness/face.js';
import { describeReply } from '../common/replies.js';
import { containerReply, judgeReleases, releasedAfterFailure } from './reservation.js';

const MISSING_IMAGE = 'registry.invalid/cri-conform/no-such-image:0';

export const check = defineCheck({
  id: 'NAME-07',
  level: 'MUST',
  // The NRI variant faults a hook: it must never share the NRI socket with another check's plugins.
  needs: ['nri'],
  title:
    'A removed container, or one whose CreateContainer failed (missing image, NRI hook error), releases its name: an identical CreateContainer succeeds at once',
  contract:
    'cri-api v0.32.3 api.proto RemoveContainer "removes the container"; kubelet: recreates a container with the same metadata after removing it or after a failed create; containerd CRI releases the container name on removal and on a failed create',
  clauses: {
    released: 'a removed container, or one whose CreateContainer failed, releases its name at once',
  },
  async run(t: CheckContext) {
    t.step('free a container name by removal and by failed creates; each time create the same name again');
    const podConfig = t.make.pod('name-07');
    const podId = await t.cri.runPod(podConfig);
    const create = async (config: ContainerConfig) =>
      containerReply(
        await t.cri.tryCall('CreateContainer', { podSandboxId: podId, config, sandboxConfig: podConfig }),
      );

    const removed = t.make.container('removed');
    const containerId = await t.cri.createContainer(podId, removed, podConfig);
    await t.cri.removeContainer(containerId);
    t.step('the identical CreateContainer right after the removal');
    const again = await create(removed);
    const releases = [
      {
        what: 'removal',
        tested: true,
        problem: again.ok
          ? ''
          : `after removing ${shortId(containerId)}: ${describeReply(again)}; the removed container kept its name`,
      },
    ];

    const valid = t.make.container('bad-image');
    const broken = { ...valid, image: { image: MISSING_IMAGE, userSpecifiedImage: MISSING_IMAGE } };
    releases.push(
      await releasedAfterFailure(
        t,
        'missing image',
        () => create(broken),
        () => create(valid),
      ),
    );

    const plugin = await t.nri.plugin({ index: '10', events: ['CreateContainer'] });
    const hooked = t.make.container('hook-error');
    plugin.fault({
      match: { event: 'CreateContainer', podId, containerName: hooked.metadata.name },
      action: { kind: 'error', message: 'cri-conform NAME-07: injected CreateContainer hook error' },
      times: 1,
    });
    releases.push(
      await releasedAfterFailure(
        t,
        'NRI CreateContainer hook error',
        () => create(hooked),
        () => create(hooked),
      ),
    );
    judgeReleases(t, releases, 'released');
  },
});
