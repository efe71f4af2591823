import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { expectInOrder } from '../common/events.js';
import { deliveryWithinMs } from '../common/timing.js';

export const check = defineCheck({
  id: 'HOOK-08',
  level: 'MUST',
  needs: ['nri'],
  title:
    'A plugin that registers after a pod exists gets the pod in Synchronize, then its Stop and Remove events',
  contract:
    'containerd/nri api.proto Plugin.Synchronize: "Synchronize the state of the plugin with the runtime" (existing pods and containers); lifecycle contract PR 286: later events follow',
  clauses: {
    synchronized: 'a plugin that registers after a pod exists gets the pod in Synchronize',
    'later-events': "it then gets the pod's StopPodSandbox and RemovePodSandbox, in that order",
  },
  async run(t: CheckContext) {
    const { podId } = await t.cri.runPodWithContainer('hook-08');
    t.step('register the plugin after the pod runs');
    const plugin = await t.nri.plugin({ index: '10', events: ['StopPodSandbox', 'RemovePodSandbox'] });
    const synced = plugin.synchronized.pods.map((p) => p.id);
    t.expect(
      synced.includes(podId),
      `Synchronize gave plugin 10 the pods [${synced.map((id) => shortId(id)).join(', ')}]; missing ${shortId(podId)}`,
      'synchronized',
    );
    await t.cri.stopPod(podId);
    await t.cri.removePod(podId);
    await expectInOrder(
      t,
      plugin,
      { podId },
      ['StopPodSandbox', 'RemovePodSandbox'],
      deliveryWithinMs(t),
      'later-events',
    );
  },
});
