/** Whether an image is on the node, and pulling one; readiness applies the user's pull policy. */
import type { CriClient } from '../../cri/client.js';

const PULL_DEADLINE_MS = 120_000;

export async function imagePresent(client: CriClient, image: string): Promise<boolean> {
  const reply = await client.call(
    'ImageStatus',
    { image: { image }, verbose: false },
    { deadlineMs: 10_000 },
  );
  return reply.image !== null && reply.image.id !== '';
}

export async function pullImage(client: CriClient, image: string): Promise<void> {
  await client.call('PullImage', { image: { image } }, { deadlineMs: PULL_DEADLINE_MS });
}
