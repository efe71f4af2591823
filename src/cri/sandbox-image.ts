/**
 * Which sandbox (pause) image a runtime says it uses: containerd 1.x and CRI-O name it in their verbose
 * Status info; containerd 2.x no longer does, but pins it among its images.
 */
import type { CriClient } from './client.js';

/** Config keys that name the sandbox image: containerd 1.x `sandboxImage`, CRI-O `pause_image`. */
const PAUSE_KEYS = new Set(['sandboxImage', 'sandbox_image', 'pauseImage', 'pause_image', 'PauseImage']);

export interface SandboxImage {
  image: string;
  /** Where it came from, for the log. */
  source: string;
}

/** The runtime's sandbox image, or undefined when it does not say. */
export async function sandboxImageOf(client: CriClient): Promise<SandboxImage | undefined> {
  const status = await client.call('Status', { verbose: true }, { deadlineMs: 10_000 });
  for (const [key, value] of Object.entries(status.info)) {
    const image = findKey(parseJson(value), PAUSE_KEYS);
    if (image) return { image, source: `the runtime's status info (${key})` };
  }
  const { images } = await client.call('ListImages', { filter: null }, { deadlineMs: 10_000 });
  const pinned = images.filter((i) => i.pinned).flatMap((i) => i.repoTags);
  const pause = pinned.find((tag) => /(^|\/)pause:/.test(tag)) ?? pinned.find((tag) => /pause/.test(tag));
  return pause ? { image: pause, source: "the runtime's pinned images" } : undefined;
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
