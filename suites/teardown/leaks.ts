/**
 * The [Node] side of the teardown suite: snapshot what the host holds for a live pod, tear it down, and
 * report what is left (kubelet's PodResourcesAreReclaimed, seen from /proc, cgroupfs, netns and mounts).
 */
import { type CheckContext, describeLeaks, type PodHostSnapshot } from '../../src/harness/face.js';
import { describeReply } from '../common/replies.js';

/** Stops and removes a pod whatever state a scenario left it in; returns what went wrong, or ''. */
export async function finishTeardown(t: CheckContext, podId: string): Promise<string> {
  const stop = await t.cri.tryCall('StopPodSandbox', { podSandboxId: podId });
  const remove = await t.cri.tryCall('RemovePodSandbox', { podSandboxId: podId });
  return [
    stop.ok ? '' : `StopPodSandbox ${describeReply(stop)}`,
    remove.ok ? '' : `RemovePodSandbox ${describeReply(remove)}`,
  ]
    .filter(Boolean)
    .join('; ');
}

/** What the host still holds of a snapshot, as "process: pid 12 (...) is still alive; netns: ...", or ''. */
export async function leftoversOf(t: CheckContext, snapshot: PodHostSnapshot): Promise<string> {
  return describeLeaks(await t.host.leftovers(snapshot));
}

/** A pod torn down the way the kubelet does (StopPodSandbox, RemovePodSandbox) leaves nothing on the host. */
export async function expectReclaimed(
  t: CheckContext,
  snapshot: PodHostSnapshot,
  how: string,
): Promise<void> {
  const problems = await finishTeardown(t, snapshot.podId);
  t.expect(problems === '', `${how}: teardown failed: ${problems}`);
  const leaks = await leftoversOf(t, snapshot);
  t.expect(leaks === '', `${how}, the host still holds ${leaks}`);
}
