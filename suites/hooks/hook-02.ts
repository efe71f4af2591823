import { type CheckContext, defineCheck, type NriEventName, shortId } from '../../src/harness/face.js';
import {
  CONTAINER_EVENTS,
  describeEvents,
  missingMessage,
  orderViolation,
  POD_EVENTS,
  receivedBy,
} from '../common/events.js';
import { deliveryWithinMs } from '../common/timing.js';

/** The lifecycle chain for a pod with one container that the runtime stops and removes with the pod. */
const CHAIN: readonly NriEventName[] = [
  'RunPodSandbox',
  'CreateContainer',
  'StartContainer',
  'StopContainer',
  'StopPodSandbox',
  'RemovePodSandbox',
];

export const check = defineCheck({
  id: 'HOOK-02',
  level: 'MUST',
  needs: ['nri'],
  title:
    'With a container, events arrive as RunPodSandbox < CreateContainer < StartContainer < StopContainer < StopPodSandbox < RemovePodSandbox, RemoveContainer after StopContainer, with consistent ids',
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286): at StopPodSandbox the workload containers are stopped; cri-api v0.32.3 api.proto StopPodSandbox/RemovePodSandbox: running containers "must be forcibly terminated" (and removed)',
  clauses: {
    chain:
      'the events of a pod with a container arrive in lifecycle order, RemoveContainer after StopContainer',
    ids: 'each event names the pod and container it is about',
  },
  async run(t: CheckContext) {
    const plugin = await t.nri.plugin({ index: '10', events: [...POD_EVENTS, ...CONTAINER_EVENTS] });
    const { podId, containerId } = await t.cri.runPodWithContainer('hook-02');
    t.step(
      'stop and remove the pod while its container runs: the runtime stops and removes the container itself',
    );
    await t.cri.stopPod(podId);
    await t.cri.removePod(podId);

    const got = await receivedBy(plugin, { podId }, [...CHAIN, 'RemoveContainer'], deliveryWithinMs(t));
    const missing = missingMessage(plugin, got, [...CHAIN, 'RemoveContainer']);
    t.expect(missing === '', missing, 'chain');
    const order = orderViolation(plugin, got, CHAIN);
    t.expect(order === '', order, 'chain');
    const removeAfterStop = orderViolation(plugin, got, ['StopContainer', 'RemoveContainer']);
    t.expect(removeAfterStop === '', removeAfterStop, 'chain');

    const foreign = got.filter(
      (e) =>
        e.pod.id !== podId ||
        (e.container && (e.container.id !== containerId || e.container.podSandboxId !== podId)),
    );
    t.expect(
      foreign.length === 0,
      `events ${describeEvents(foreign)} name pod/container ${foreign.map((e) => `${shortId(e.pod.id)}/${e.container ? shortId(e.container.id) : '-'} (sandbox ${e.container ? shortId(e.container.podSandboxId) : '-'})`).join(', ')}; expected pod ${shortId(podId)}, container ${shortId(containerId)}`,
      'ids',
    );
  },
});
