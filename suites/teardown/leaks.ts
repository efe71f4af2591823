/**
 * The [Node] side of the teardown suite: snapshot what the host holds for a live pod, tear it down, and
 * report what is left (kubelet's PodResourcesAreReclaimed, seen from /proc, cgroupfs, netns and mounts).
 */
import { type CheckContext, describeLeaks, type PodHostSnapshot } from '../../src/harness/face.js';
import { describeReply } from '../common/replies.js';

/**
 * Stops and removes a pod whatever state a scenario left it in, leaving out the calls in `sent` (a
 * scenario's own calls: sending one again would let a second try hide what the first left); returns what
 * went wrong, or ''.
 */
export async function finishTeardown(
  t: CheckContext,
  podId: string,
  sent: readonly string[] = [],
): Promise<string> {
  const problems: string[] = [];
  for (const method of ['StopPodSandbox', 'RemovePodSandbox'] as const) {
    if (sent.includes(method)) continue;
    const reply = await t.cri.tryCall(method, { podSandboxId: podId });
    if (!reply.ok) problems.push(`${method} ${describeReply(reply)}`);
  }
  return problems.join('; ');
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
  clause: string,
): Promise<void> {
  const problems = await finishTeardown(t, snapshot.podId);
  t.expect(problems === '', `${how}: teardown failed: ${problems}`, clause);
  const leaks = await leftoversOf(t, snapshot);
  t.expect(leaks === '', `${how}, the host still holds ${leaks}`, clause);
}
