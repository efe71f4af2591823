/**
 * Getting the run's images into the running private instance, as image-plan.ts decided: the bundled
 * archive, the node's images copied in (flavor-setup.ts), and then a wait until the copy lists them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CriClient } from '../cri/client.js';
import type { FlavorSetup } from './flavor-setup.js';
import type { ImagePlan, PlannedImage } from './image-plan.js';
import { bundledArchive } from './images.js';

const DEFAULT_IMAGE_CACHE = '/var/cache/cri-conform';
/** What the bundled archive takes, for the room check (it is about 2 MB). */
const BUNDLED_BYTES = 16 << 20;
const IMAGES_LISTED_WITHIN_MS = 20_000;
const POLL_MS = 50;

/** Brings each image the plan takes from the node or the bundle into the running copy. */
export async function provideImages(plan: ImagePlan, setup: FlavorSetup, cache?: string): Promise<void> {
  const images = [plan.testImage, plan.pauseImage];
  if (images.some((i) => i.source === 'bundled'))
    await setup.importImages(
      await bundledArchive(cache ?? process.env.CRI_CONFORM_IMAGE_CACHE ?? DEFAULT_IMAGE_CACHE),
    );
  const copied = new Set<string>();
  for (const image of images.filter(isFromNode)) {
    if (copied.has(image.names.join(' '))) continue;
    copied.add(image.names.join(' '));
    await setup.copyNodeImage(image.names);
  }
}

/**
 * containerd's CRI learns of an imported image from an event, a moment after the import returned (on 2.1
 * the run's first ImageStatus could still miss it): wait until the copy lists every image it was given.
 */
export async function untilListed(endpoint: string, plan: ImagePlan, signal: AbortSignal): Promise<void> {
  const refs = [plan.testImage, plan.pauseImage].filter((i) => i.source !== 'pull').map((i) => i.ref);
  const client = await CriClient.connect({ runtimeEndpoint: endpoint, defaultDeadlineMs: 5_000 });
  try {
    const deadline = Date.now() + IMAGES_LISTED_WITHIN_MS;
    for (;;) {
      signal.throwIfAborted();
      const missing: string[] = [];
      for (const ref of refs) if (!(await imageListed(client, ref))) missing.push(ref);
      if (missing.length === 0) return;
      if (Date.now() > deadline)
        throw new Error(
          `the private instance does not list ${missing.join(', ')} ${IMAGES_LISTED_WITHIN_MS} ms after importing it`,
        );
      await sleep(POLL_MS);
    }
  } finally {
    client.close();
  }
}

async function imageListed(client: CriClient, image: string): Promise<boolean> {
  const { image: found } = await client.call('ImageStatus', { image: { image }, verbose: false });
  return found !== null && found.id !== '';
}

export function isFromNode(i: PlannedImage): i is Extract<PlannedImage, { source: 'node' }> {
  return i.source === 'node';
}

/** The compressed size of what the copy takes in, for the room check. */
export function imageBytes(plan: ImagePlan): number {
  const images = [plan.testImage, plan.pauseImage];
  const fromNode = images.filter(isFromNode).reduce((n, i) => n + i.sizeBytes, 0);
  return fromNode + (images.some((i) => i.source === 'bundled') ? BUNDLED_BYTES : 0);
}

export function describeImages(plan: ImagePlan): string {
  const one = (what: string, i: PlannedImage) =>
    `${what} ${i.ref} ${i.source === 'node' ? "copied from the node's runtime" : i.source === 'bundled' ? 'from the bundled archive' : 'pulled by the copy'}`;
  return `${one('test image', plan.testImage)}; ${one('sandbox image', plan.pauseImage)}`;
}
