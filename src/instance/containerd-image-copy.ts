/**
 * An image the node's containerd holds, copied into the private instance: its record and blobs read through
 * the node's own API (read calls only), written as an OCI archive named like the node names it, then
 * imported by the copy. The walk keeps what the node has of the image: an index's manifests for other
 * platforms are usually absent and are left out; anything this platform's manifest needs must be there.
 */
import type { ContainerdContentReader, ContentDescriptor } from '../cri/containerd-content.js';
import { type ArchiveEntry, writeTar } from './oci-archive.js';

const INDEX_TYPES = new Set([
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
]);
const MANIFEST_TYPES = new Set([
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
]);

export interface ImageBlobs {
  /** The node's image record's target. */
  root: ContentDescriptor;
  /** Every blob to copy, the root first. */
  blobs: ContentDescriptor[];
  bytes: number;
}

/** Why an image the node lists cannot be copied from its content store. */
export class UncopyableImage extends Error {
  readonly code = 'ERR_UNCOPYABLE_IMAGE';
  override readonly name = 'UncopyableImage';
}

interface Platform {
  os?: string;
  architecture?: string;
}

/** containerd's platform name of this process's architecture. */
export function goArch(arch: string = process.arch): string {
  const names: Record<string, string> = { x64: 'amd64', ia32: '386', ppc64: 'ppc64le' };
  return names[arch] ?? arch;
}

/** The blobs of `name` in the node's store for linux/`arch`; throws UncopyableImage when one is missing. */
export async function imageBlobs(
  reader: ContainerdContentReader,
  name: string,
  arch = goArch(),
): Promise<ImageBlobs> {
  const root = await reader.imageTarget(name);
  if (root === undefined) throw new UncopyableImage(`the node's containerd has no image record ${name}`);
  const blobs: ContentDescriptor[] = [];
  const need = async (d: ContentDescriptor, what: string) => {
    if (!(await reader.has(d.digest)))
      throw new UncopyableImage(`${what} ${d.digest} of ${name} is not in the node's content store`);
    blobs.push(d);
  };
  const manifest = async (d: ContentDescriptor) => {
    await need(d, 'the manifest');
    const m = JSON.parse((await reader.readAll(d.digest)).toString('utf8')) as {
      config: ContentDescriptor;
      layers: ContentDescriptor[];
    };
    await need(m.config, 'the config');
    for (const layer of m.layers) await need(layer, 'the layer');
  };
  const walk = async (d: ContentDescriptor): Promise<boolean> => {
    if (MANIFEST_TYPES.has(d.mediaType)) {
      await manifest(d);
      return true;
    }
    if (!INDEX_TYPES.has(d.mediaType)) throw new UncopyableImage(`${name} is a ${d.mediaType}, not an image`);
    await need(d, 'the index');
    const index = JSON.parse((await reader.readAll(d.digest)).toString('utf8')) as {
      manifests: Array<ContentDescriptor & { platform?: Platform }>;
    };
    let found = false;
    for (const child of index.manifests) {
      const ours = child.platform?.os === 'linux' && child.platform.architecture === arch;
      // Other platforms' manifests stay out: the node rarely holds them, and the copy never reads them.
      if (ours || child.platform === undefined) found = (await walk(child)) || found;
    }
    return found;
  };
  if (!(await walk(root)))
    throw new UncopyableImage(`${name} has no linux/${arch} manifest in the node's content store`);
  const unique = [...new Map(blobs.map((b) => [b.digest, b])).values()];
  return { root, blobs: unique, bytes: unique.reduce((n, b) => n + Number(b.size), 0) };
}

/** Writes the image as an OCI archive whose index names it `names` (one entry per name, as ctr imports). */
export async function writeImageArchive(
  reader: ContainerdContentReader,
  image: ImageBlobs,
  names: readonly string[],
  file: string,
): Promise<void> {
  const index = {
    schemaVersion: 2,
    manifests: names.map((n) => ({
      ...descriptorJson(image.root),
      annotations: { 'io.containerd.image.name': n, 'org.opencontainers.image.ref.name': n },
    })),
  };
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  const fixed = [
    ['oci-layout', json({ imageLayoutVersion: '1.0.0' })],
    ['index.json', json(index)],
  ] as const;
  const entries = function* (): Generator<ArchiveEntry> {
    for (const [name, data] of fixed) yield { name, size: data.length, data };
    for (const b of image.blobs)
      yield {
        name: `blobs/${b.digest.replace(':', '/')}`,
        size: Number(b.size),
        data: reader.read(b.digest),
      };
  };
  await writeTar(file, entries());
}

function descriptorJson(d: ContentDescriptor): Record<string, unknown> {
  return { mediaType: d.mediaType, digest: d.digest, size: Number(d.size) };
}
