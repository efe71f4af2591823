/**
 * Images for a run inside a cluster. The node can pull there, so the defaults are public images instead of
 * the locally built ones: the runtime's own pause image where it says which one it uses, and a small
 * busybox. Air-gapped clusters set CRI_CONFORM_TEST_IMAGE and CRI_CONFORM_PAUSE_IMAGE in the plugin env.
 */
import type { CriClient } from '../../cri/client.js';

/** The busybox Kubernetes' own e2e tests use; on registry.k8s.io, so no Docker Hub pull limits. */
export const CLUSTER_TEST_IMAGE = 'registry.k8s.io/e2e-test-images/busybox:1.36.1-1';
/** The kubelet's default sandbox image of Kubernetes 1.31-1.33, when the runtime does not say. */
export const CLUSTER_PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';

/** Config keys that name the sandbox image: containerd 1.x `sandboxImage`, CRI-O `pause_image`. */
const PAUSE_KEYS = new Set(['sandboxImage', 'sandbox_image', 'pauseImage', 'pause_image', 'PauseImage']);

export interface PauseImageChoice {
  image: string;
  /** Where it came from, for the log. */
  source: string;
}

export async function pauseImageOf(client: CriClient): Promise<PauseImageChoice> {
  const status = await client.call('Status', { verbose: true }, { deadlineMs: 10_000 });
  for (const [key, value] of Object.entries(status.info)) {
    const image = findKey(parseJson(value), PAUSE_KEYS);
    if (image) return { image, source: `the runtime's status info (${key})` };
  }
  // containerd 2.x no longer reports its config's sandbox image, but it pins that image.
  const { images } = await client.call('ListImages', { filter: null }, { deadlineMs: 10_000 });
  const pinned = images.filter((i) => i.pinned).flatMap((i) => i.repoTags);
  const pause = pinned.find((tag) => /(^|\/)pause:/.test(tag)) ?? pinned.find((tag) => /pause/.test(tag));
  if (pause) return { image: pause, source: "the runtime's pinned images" };
  return { image: CLUSTER_PAUSE_IMAGE, source: 'the default (the runtime does not report its pause image)' };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function findKey(value: unknown, keys: ReadonlySet<string>): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (keys.has(k) && typeof v === 'string' && v !== '') return v;
    const nested = findKey(v, keys);
    if (nested) return nested;
  }
  return undefined;
}
