/**
 * Where each image of the run comes from in the private instance, decided before anything of it exists:
 * the bundled archive for the bundled names, else the node's own runtime when it holds the image (copied
 * in), else the copy pulls it, only when --pull allows. An image found nowhere stops the run here, with
 * the image and every place looked in. The sandbox image is the node's own unless --pause-image names one.
 */
import { CriClient } from '../cri/client.js';
import { sandboxImageOf } from '../cri/sandbox-image.js';
import type { InstanceRequest } from '../harness/runtime-instance.js';
import { BUNDLED_IMAGES } from './images.js';

export const BUNDLED_PAUSE = 'localhost/cri-conform/pause:1';

export type PlannedImage =
  | { ref: string; source: 'bundled' }
  /** `names`: what the node calls it (its tags, else its digests); the copy gets the same names. */
  | { ref: string; source: 'node'; names: string[]; sizeBytes: number }
  | { ref: string; source: 'pull' };

export interface ImagePlan {
  testImage: PlannedImage;
  pauseImage: PlannedImage;
  /** What the report and the console say about the choice. */
  notes: string[];
}

/** An image the run needs is nowhere the copy may take it from. */
export class MissingImage extends Error {
  readonly code = 'ERR_MISSING_IMAGE';
  override readonly name = 'MissingImage';
}

export async function planImages(
  request: Pick<InstanceRequest, 'endpoint' | 'testImage' | 'pauseImage' | 'pauseImageNamed' | 'pull'>,
): Promise<ImagePlan> {
  const client = await CriClient.connect({ runtimeEndpoint: request.endpoint, defaultDeadlineMs: 10_000 });
  try {
    const notes: string[] = [];
    let pauseRef = request.pauseImage;
    let pauseFallback = false;
    if (!request.pauseImageNamed) {
      const node = await sandboxImageOf(client);
      pauseRef = node?.image ?? BUNDLED_PAUSE;
      pauseFallback = true;
      if (node) notes.push(`sandbox image ${node.image}: the node's own, from ${node.source}`);
    }
    const pauseImage = await plan(client, request, pauseRef, pauseFallback);
    if (pauseImage.ref !== pauseRef)
      notes.push(
        `the node does not hold its sandbox image ${pauseRef}: the bundled ${BUNDLED_PAUSE} stands in (--pause-image names another)`,
      );
    const testImage = await plan(client, request, request.testImage, false);
    for (const i of [testImage, pauseImage]) if (i.source === 'pull') notes.push(pullNote(i.ref));
    return { testImage, pauseImage, notes };
  } finally {
    client.close();
  }
}

async function plan(
  client: CriClient,
  request: Pick<InstanceRequest, 'endpoint' | 'pull'>,
  ref: string,
  bundledStandsIn: boolean,
): Promise<PlannedImage> {
  if (BUNDLED_IMAGES.includes(ref)) return { ref, source: 'bundled' };
  const { image } = await client.call('ImageStatus', { image: { image: ref }, verbose: false });
  if (image !== null && image.id !== '') {
    const names = image.repoTags.length > 0 ? image.repoTags : image.repoDigests;
    if (names.length > 0) return { ref, source: 'node', names, sizeBytes: Number(image.size) };
  }
  if (bundledStandsIn) return { ref: BUNDLED_PAUSE, source: 'bundled' };
  if (request.pull !== 'never') return { ref, source: 'pull' };
  throw new MissingImage(
    `image ${ref} is not on the node's runtime (ImageStatus on ${request.endpoint} found no image by that name) and is not one of the bundled images (${BUNDLED_IMAGES.join(', ')}); import it into the node's runtime, name one it holds, or allow the private instance to pull it (--pull missing)`,
  );
}

/**
 * Each image the plan copies from the node, checked to be whole there (`inspect` throws why not): one that
 * is not is pulled by the copy instead where --pull allows, and stops the run otherwise.
 */
export async function settleNodeImages(
  plan: ImagePlan,
  pull: InstanceRequest['pull'],
  inspect: (name: string) => Promise<void>,
): Promise<ImagePlan> {
  const settle = async (image: PlannedImage): Promise<PlannedImage> => {
    if (image.source !== 'node') return image;
    try {
      await inspect(image.names[0] ?? image.ref);
      return image;
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      if (pull === 'never')
        throw new MissingImage(
          `${why}, so the private instance cannot copy ${image.ref} from the node, and --pull never keeps it from pulling it; name an image the node holds whole, or a bundled one`,
        );
      plan.notes.push(`${why}: ${pullNote(image.ref).replace(/^.*?: /, '')}`);
      return { ref: image.ref, source: 'pull' };
    }
  };
  return { ...plan, testImage: await settle(plan.testImage), pauseImage: await settle(plan.pauseImage) };
}

function pullNote(ref: string): string {
  return `${ref} is neither on the node nor bundled: the private instance pulls it from its registry itself, with none of the node's credentials or mirrors (--pull-auth-file sends credentials of your own)`;
}
