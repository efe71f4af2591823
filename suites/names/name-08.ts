import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { describeReply } from '../common/replies.js';
import { containerReply, type IdReply, observeReply } from './reservation.js';

/**
 * Sends a create, then the identical one, and records how the second was answered. A first request that
 * fails is recorded too: an OBSERVE check never fails. Returns the id the first request got.
 */
async function sendTwice(
  t: CheckContext,
  method: string,
  send: () => Promise<IdReply>,
): Promise<string | undefined> {
  const first = await send();
  if (!first.ok) {
    t.observe(`${method}.setup`, `the first request failed: ${describeReply(first)}`);
    return undefined;
  }
  observeReply(t, method, await send(), first.value);
  return first.value;
}

export const check = defineCheck({
  id: 'NAME-08',
  level: 'OBSERVE',
  title: 'Records the reservation error text and gRPC code, and whether the message names the real holder',
  contract:
    'containerd CRI: "failed to reserve sandbox name ... name ... is reserved for <id>" (and the container equivalent); CRI-O issue 4221: the kubelet logs this text, so operators read the holder id from it',
  clauses: {},
  async run(t: CheckContext) {
    t.step('send an identical RunPodSandbox and CreateContainer after the first ones succeeded');
    const podConfig = t.make.pod('name-08');
    const podId = await sendTwice(t, 'RunPodSandbox', () => t.cri.tryRunPod(podConfig));
    if (podId === undefined) return;
    const request = { podSandboxId: podId, config: t.make.container('workload'), sandboxConfig: podConfig };
    await sendTwice(t, 'CreateContainer', async () =>
      containerReply(await t.cri.tryCall('CreateContainer', request)),
    );
  },
});
