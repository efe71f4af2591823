import {
  type CheckContext,
  defineCheck,
  describeLeaks,
  type PodHostSnapshot,
  shortId,
  skipReason,
} from '../../src/harness/face.js';
import { describeReply } from '../common/replies.js';

export const check = defineCheck({
  id: 'TEAR-09',
  level: 'MUST',
  title:
    'RemovePodSandbox on a sandbox with running containers forcibly stops them and removes everything: the sandbox and containers are NOT_FOUND and, on the node, their processes are gone',
  contract:
    'cri-api v0.32.3 api.proto RemovePodSandbox: "If there are any running containers in the sandbox, they must be forcibly terminated and removed"',
  clauses: {
    removes:
      'RemovePodSandbox of a sandbox with running containers returns OK and the sandbox and containers are NOT_FOUND',
    'processes-gone': "the pod's processes are gone from the node",
  },
  async run(t: CheckContext) {
    const { podId, containerId, podConfig } = await t.cri.runPodWithContainer('tear-09');
    const second = await t.cri.createContainer(podId, t.make.container('second'), podConfig);
    await t.cri.startContainer(second);
    const workload = await workloadOnHost(t, podId, [containerId, second]);
    t.step('remove the pod without stopping anything first');
    const reply = await t.cri.tryCall('RemovePodSandbox', { podSandboxId: podId });
    t.expect(
      reply.ok,
      `RemovePodSandbox on a sandbox with two running containers returned ${describeReply(reply)}`,
      'removes',
    );
    // Only NOT_FOUND says an object is gone (another error ends the check in ERROR): a runtime may stop
    // listing what it still keeps.
    const podState = await t.cri.podStateOrGone(podId);
    t.expect(
      podState === 'GONE',
      `after RemovePodSandbox, PodSandboxStatus(${shortId(podId)}) still answers: ${podState}`,
      'removes',
    );
    for (const id of [containerId, second]) {
      const state = await t.cri.containerStateOrGone(id);
      t.expect(
        state === 'GONE',
        `after RemovePodSandbox, ContainerStatus(${shortId(id)}) still answers: ${state}`,
        'removes',
      );
    }
    if (!workload) return;
    // Records dropped while the workload runs on are no removal: the containers were never terminated.
    const alive = (await t.host.leftovers(workload)).filter((l) => l.kind === 'process');
    t.expect(
      alive.length === 0,
      `after RemovePodSandbox answered OK and the sandbox and containers are NOT_FOUND, the pod's processes still run on the host: ${describeLeaks(alive)}`,
      'processes-gone',
    );
  },
});

/**
 * What the pod runs as on the host, to see it end; undefined when the host cannot be probed. Then only
 * the CRI part is asserted, and the verdict says that the host part was not run.
 */
async function workloadOnHost(
  t: CheckContext,
  podId: string,
  containerIds: string[],
): Promise<PodHostSnapshot | undefined> {
  try {
    return await t.host.snapshot(podId, containerIds);
  } catch (e) {
    const reason = skipReason(e);
    if (reason === undefined) throw e;
    return notProbed(t, reason);
  }
}

function notProbed(t: CheckContext, reason: string): undefined {
  t.notRun('host part', `whether the workload's processes end was not looked at: ${reason}`);
  return undefined;
}
