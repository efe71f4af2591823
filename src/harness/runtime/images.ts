/** Whether an image is on the node, and pulling one; readiness applies the user's pull policy. */
import type { CriClient } from '../../cri/client.js';
import type { AuthConfig } from '../../cri/types.js';

const PULL_DEADLINE_MS = 120_000;

export async function imagePresent(client: CriClient, image: string): Promise<boolean> {
  const reply = await client.call(
    'ImageStatus',
    { image: { image }, verbose: false },
    { deadlineMs: 10_000 },
  );
  return reply.image !== null && reply.image.id !== '';
}

/** @param auth sent in the call as a kubelet sends an imagePullSecret's (--pull-auth-file) */
export async function pullImage(client: CriClient, image: string, auth?: AuthConfig): Promise<void> {
  await client.call(
    'PullImage',
    { image: { image }, ...(auth ? { auth } : {}) },
    { deadlineMs: PULL_DEADLINE_MS },
  );
}
