import { defineCheck } from '../../src/harness/check.js';
import type { CheckContext } from '../../src/harness/context.js';
import { runPodWithHeldRunHook } from './holds.js';
import { probeWhileHeldMs } from './timing.js';

export const check = defineCheck({
  id: 'HOOK-03',
  level: 'MUST',
  needs: ['nri'],
  title:
    'The RunPodSandbox hook finishes before the CRI reply: while it is held the sandbox is not READY and takes no container; after release it is READY',
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286): RunPodSandbox plugins run before the sandbox is handed out (they can fail it); cri-tools nri_linux.go "should not expose sandbox while RunPodSandbox hook is in progress"',
  async run(t: CheckContext) {
    const { config, held, hold, reply } = await runPodWithHeldRunHook(t, 'hook-03');
    const podId = held.pod.id;
    const deadlineMs = probeWhileHeldMs(t, held);
    const listedReady = (await t.cri.listPods({ state: 'SANDBOX_READY' })).some((p) => p.id === podId);
    const status = await t.cri.tryCall(
      'PodSandboxStatus',
      { podSandboxId: podId, verbose: false },
      { deadlineMs },
    );
    const early = await t.cri.tryCall(
      'CreateContainer',
      { podSandboxId: podId, config: t.make.container('early'), sandboxConfig: config },
      { deadlineMs },
    );
    hold.release();
    const done = await reply;

    t.expect(
      !listedReady,
      `while the RunPodSandbox hook was held, ListPodSandbox listed ${podId.slice(0, 13)} as READY`,
    );
    t.expect(
      !(status.ok && status.value.status?.state === 'SANDBOX_READY'),
      `while the RunPodSandbox hook was held, PodSandboxStatus(${podId.slice(0, 13)}) said SANDBOX_READY`,
    );
    t.expect(
      !early.ok,
      `while the RunPodSandbox hook was held, CreateContainer into ${podId.slice(0, 13)} succeeded (container ${early.ok ? early.value.containerId.slice(0, 13) : ''})`,
    );
    t.expect(
      done.ok,
      `after release RunPodSandbox failed: ${done.ok ? '' : `${done.code}: ${done.message}`}`,
    );
    t.expect(
      done.value.podSandboxId === podId,
      `RunPodSandbox returned ${done.value.podSandboxId.slice(0, 13)}, but the held hook was for ${podId.slice(0, 13)}`,
    );
    const after = await t.cri.podStateOrGone(podId);
    t.expect(after === 'SANDBOX_READY', `after the reply the sandbox is ${after}, not SANDBOX_READY`);
    const stray = await t.cri.listContainers({ podId });
    t.expect(
      stray.length === 0,
      `CreateContainer sent during the hold left container(s) ${stray.map((c) => `${c.name}/${c.state}`).join(', ')} in the sandbox`,
    );
  },
});
