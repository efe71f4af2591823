import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { lookWhileHeld } from '../common/holds.js';
import { SharedPlugin } from '../common/shared-plugin.js';
import { deliveryWithinMs, probeWhileHeldMs } from '../common/timing.js';
import { expectNetnsAt } from './netns.js';

export const check = defineCheck({
  id: 'HOOK-05',
  level: 'MUST',
  needs: ['nri', 'stalls-hooks', 'holds-in-lane'],
  title:
    'At StopPodSandbox hook time every workload container is EXITED while the sandbox infrastructure still exists: its netns is present and PodSandboxStatus answers',
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286) "Sandbox State Contract": at StopPodSandbox workload containers are stopped; the network namespace and pod resources are not removed until the hook completes',
  clauses: {
    'containers-exited': 'at the StopPodSandbox hook every workload container is EXITED',
    'status-answers': 'at the StopPodSandbox hook PodSandboxStatus answers, and the stop then completes',
    'netns-present': 'at the StopPodSandbox hook the pod network namespace is still present',
  },
  async run(t: CheckContext) {
    const plugin = new SharedPlugin(t, { index: '10', events: ['RunPodSandbox', 'StopPodSandbox'] });
    // The pod is built inside the turn of the hook lane too: no other check's hold may get the plugin dropped
    // before the Run event it needs.
    const { containerId, netns, held, seen, reply } = await t.oneAtATime(
      'pod with a held StopPodSandbox hook',
      async () => {
        const connected = await plugin.connected();
        const { podId, containerId } = await t.cri.runPodWithContainer('hook-05');
        // Stop events carry no netns on some runtimes (containerd 1.7): take the path from the Run event,
        // else from the host while the pod still runs (only when host probes work).
        const run = await connected.waitFor(
          { event: 'RunPodSandbox', podId },
          { withinMs: deliveryWithinMs(t), what: 'the RunPodSandbox event of the pod' },
        );
        const fromHost = async () =>
          t.host.available ? ((await t.host.snapshot(podId, [containerId])).netnsPath ?? '') : '';
        const netns = run.pod.netnsPath || (await fromHost());

        t.step('hold the StopPodSandbox hook and look at the containers, the status and the netns');
        const looked = await lookWhileHeld(
          t,
          plugin,
          { event: 'StopPodSandbox', match: { podId }, clause: 'containers-exited' },
          () => t.cri.tryCall('StopPodSandbox', { podSandboxId: podId }),
          async (held) => {
            const deadlineMs = probeWhileHeldMs(t, held);
            return {
              ctr: await t.cri.tryCall('ContainerStatus', { containerId, verbose: false }, { deadlineMs }),
              pod: await t.cri.tryCall(
                'PodSandboxStatus',
                { podSandboxId: podId, verbose: false },
                { deadlineMs },
              ),
              untested: expectNetnsAt(
                t,
                netns,
                `StopPodSandbox#${held.seq}`,
                'while the hook ran',
                'netns-present',
              ),
            };
          },
        );
        return { containerId, netns, ...looked };
      },
    );
    const { ctr, pod, untested } = seen;
    const done = await reply;

    t.expect(
      ctr.ok && ctr.value.status?.state === 'CONTAINER_EXITED',
      `at StopPodSandbox#${held.seq} container ${shortId(containerId)} was ${ctr.ok ? ctr.value.status?.state : `unreadable (${ctr.code}: ${ctr.message})`}, not CONTAINER_EXITED`,
      'containers-exited',
    );
    t.expect(
      pod.ok,
      `at StopPodSandbox#${held.seq} PodSandboxStatus failed: ${pod.ok ? '' : `${pod.code}: ${pod.message}`}`,
      'status-answers',
    );
    t.expect(
      netns !== '' || !t.host.available,
      'neither the RunPodSandbox event nor the host named the pod network namespace',
      'netns-present',
    );
    t.expect(
      done.ok,
      `after release StopPodSandbox failed: ${done.ok ? '' : `${done.code}: ${done.message}`}`,
      'status-answers',
    );
    // The netns at hook time is the contract's main point: without it a PASS would claim too much.
    if (untested !== '') t.skip(`the pod's network namespace at hook time could not be tested: ${untested}`);
  },
});
