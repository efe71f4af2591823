import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { lookWhileRunHookHeld } from '../common/holds.js';
import { describeReply } from '../common/replies.js';
import { SharedPlugin } from '../common/shared-plugin.js';
import { probeWhileHeldMs } from '../common/timing.js';

export const check = defineCheck({
  id: 'HOOK-03',
  level: 'MUST',
  needs: ['nri', 'stalls-hooks', 'holds-in-lane'],
  title:
    'The RunPodSandbox hook finishes before the CRI reply: while it is held the sandbox is not READY and takes no container; after release it is READY',
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286): RunPodSandbox plugins run before the sandbox is handed out (they can fail it); cri-tools nri_linux.go "should not expose sandbox while RunPodSandbox hook is in progress"',
  clauses: {
    'hidden-while-held':
      'while the RunPodSandbox hook is held the sandbox is not READY (listed or by status) and takes no container',
    'ready-after-release': 'after the hook is released RunPodSandbox returns that sandbox, READY',
  },
  async run(t: CheckContext) {
    const plugin = new SharedPlugin(t, { index: '10', events: ['RunPodSandbox'] });
    const config = t.make.pod('hook-03');
    const { held, seen, reply } = await lookWhileRunHookHeld(
      t,
      plugin,
      config,
      'hidden-while-held',
      async (held) => {
        const deadlineMs = probeWhileHeldMs(t, held);
        const listed = await t.cri.listPods({ state: 'SANDBOX_READY' });
        return {
          listedReady: listed.some((p) => p.id === held.pod.id),
          status: await t.cri.tryCall(
            'PodSandboxStatus',
            { podSandboxId: held.pod.id, verbose: false },
            { deadlineMs },
          ),
          early: await t.cri.tryCall(
            'CreateContainer',
            { podSandboxId: held.pod.id, config: t.make.container('early'), sandboxConfig: config },
            { deadlineMs },
          ),
        };
      },
    );
    const podId = held.pod.id;
    const { listedReady, status, early } = seen;
    const done = await reply;

    t.expect(
      !listedReady,
      `while the RunPodSandbox hook was held, ListPodSandbox listed ${shortId(podId)} as READY`,
      'hidden-while-held',
    );
    t.expect(
      !(status.ok && status.value.status?.state === 'SANDBOX_READY'),
      `while the RunPodSandbox hook was held, PodSandboxStatus(${shortId(podId)}) said SANDBOX_READY`,
      'hidden-while-held',
    );
    t.expect(
      !early.ok,
      `while the RunPodSandbox hook was held, CreateContainer into ${shortId(podId)} succeeded (container ${early.ok ? shortId(early.value.containerId) : ''})`,
      'hidden-while-held',
    );
    t.expect(done.ok, `after release RunPodSandbox failed: ${describeReply(done)}`, 'ready-after-release');
    t.expect(
      done.value === podId,
      `RunPodSandbox returned ${shortId(done.value)}, but the held hook was for ${shortId(podId)}`,
      'ready-after-release',
    );
    const after = await t.cri.podStateOrGone(podId);
    t.expect(
      after === 'SANDBOX_READY',
      `after the reply the sandbox is ${after}, not SANDBOX_READY`,
      'ready-after-release',
    );
    const stray = await t.cri.listContainers({ podId });
    t.expect(
      stray.length === 0,
      `CreateContainer sent during the hold left container(s) ${stray.map((c) => `${c.name}/${c.state}`).join(', ')} in the sandbox`,
      'hidden-while-held',
    );
  },
});
