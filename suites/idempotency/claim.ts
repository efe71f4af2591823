/**
 * Checks that leave a timed-out sandbox held for reuse (IDEM-04, IDEM-10) end by claiming it with the
 * identical request, as the kubelet would, and removing it. Otherwise the runtime would keep a hidden
 * sandbox, with its pause process and IP lease, after the run, where no label-based cleanup can see it.
 * This is housekeeping, not the contract: a claim that fails is recorded, never judged.
 */
import { type CheckContext, describeAttempts, shortId } from '../../src/harness/face.js';
import type { TimedOutContainer } from './container-scenarios.js';
import { kubeletRetry } from './kubelet-retry.js';
import type { TimedOutPod } from './scenarios.js';

/** Returns the id the claim got, if any. */
export async function claimAndRemove(t: CheckContext, timedOut: TimedOutPod): Promise<string | undefined> {
  const name = timedOut.config.metadata.name;
  t.step(`claim what the timed-out RunPodSandbox ${name} left, with the identical request, and remove it`);
  const outcome = await t.cri.retry('RunPodSandbox', timedOut.request, kubeletRetry(t));
  const podId = outcome.value?.podSandboxId;
  t.observe(
    'timed-out sandbox claimed',
    podId ? shortId(podId) : `no: ${describeAttempts(outcome.attempts) || 'no attempt'}`,
  );
  if (podId) await removeQuietly(t, podId);
  return podId;
}

/** As claimAndRemove, for a timed-out CreateContainer. */
export async function claimContainerAndRemove(
  t: CheckContext,
  timedOut: Pick<TimedOutContainer, 'request'>,
): Promise<void> {
  t.step(
    `claim what the timed-out CreateContainer ${timedOut.request.config.metadata.name} left, and remove it`,
  );
  const outcome = await t.cri.retry('CreateContainer', timedOut.request, kubeletRetry(t));
  const containerId = outcome.value?.containerId;
  t.observe(
    'timed-out container claimed',
    containerId ? shortId(containerId) : `no: ${describeAttempts(outcome.attempts) || 'no attempt'}`,
  );
  if (containerId) await t.cri.tryCall('RemoveContainer', { containerId });
}

/** Stop and remove, recorded in the timeline; failures are the cleanup's to retry, not a verdict. */
export async function removeQuietly(t: CheckContext, podSandboxId: string): Promise<void> {
  await t.cri.tryCall('StopPodSandbox', { podSandboxId });
  await t.cri.tryCall('RemovePodSandbox', { podSandboxId });
}
