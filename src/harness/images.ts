/** Making sure the test and pause images are there, by the user's pull policy (nodes are often air-gapped). */
import type { CriClient } from '../cri/client.js';
import { EnvironmentError, errorMessage } from './errors.js';
import type { PullPolicy } from './settings.js';

const PULL_DEADLINE_MS = 120_000;

export async function imagePresent(client: CriClient, image: string): Promise<boolean> {
  const reply = await client.call(
    'ImageStatus',
    { image: { image }, verbose: false },
    { deadlineMs: 10_000 },
  );
  return reply.image !== null && reply.image.id !== '';
}

export async function ensureImage(
  client: CriClient,
  image: string,
  pull: PullPolicy,
  flag: string,
): Promise<string> {
  const present = await imagePresent(client, image);
  if (pull === 'never' || (pull === 'missing' && present)) {
    if (present) return 'present';
    throw new EnvironmentError(
      `image ${image} (${flag}) is not on the node and --pull is never: import it (e.g. ctr -n k8s.io images import <tar>; scripts/build-images.sh builds one) or use --pull missing`,
    );
  }
  try {
    await client.call('PullImage', { image: { image } }, { deadlineMs: PULL_DEADLINE_MS });
    return 'pulled';
  } catch (e) {
    throw new EnvironmentError(
      `cannot pull ${image} (${flag}): ${errorMessage(e)}. On an air-gapped node import it and use --pull never`,
    );
  }
}
