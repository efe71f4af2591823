import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { ContainerdContentReader, ContentDescriptor } from '../cri/containerd-content.js';
import { imageBlobs, UncopyableImage, writeImageArchive } from './containerd-image-copy.js';

/** A content store in memory, answering the reader's calls as a node's containerd would. */
function fakeStore(
  images: Record<string, ContentDescriptor>,
  blobs: Map<string, Buffer>,
): ContainerdContentReader {
  const fake = {
    imageTarget: async (name: string) => images[name],
    has: async (digest: string) => blobs.has(digest),
    readAll: async (digest: string) => blobs.get(digest) ?? Buffer.alloc(0),
    read: (digest: string) =>
      (async function* () {
        yield blobs.get(digest) ?? Buffer.alloc(0);
      })(),
    close: () => undefined,
  };
  return fake as unknown as ContainerdContentReader;
}

function blob(store: Map<string, Buffer>, mediaType: string, data: Buffer | object): ContentDescriptor {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(JSON.stringify(data));
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  store.set(digest, bytes);
  return { mediaType, digest, size: String(bytes.length), annotations: {} };
}

describe("an image copied out of the node's containerd", () => {
  const store = new Map<string, Buffer>();
  const layer = blob(store, 'application/vnd.oci.image.layer.v1.tar', Buffer.from('layer bytes'));
  const config = blob(store, 'application/vnd.oci.image.config.v1+json', {
    architecture: 'amd64',
    os: 'linux',
  });
  const manifest = blob(store, 'application/vnd.oci.image.manifest.v1+json', {
    schemaVersion: 2,
    config,
    layers: [layer],
  });
  // The arm64 manifest is named by the index but, as on a node that pulled for amd64, not in the store.
  const absent = {
    ...manifest,
    digest: `sha256:${'0'.repeat(64)}`,
    platform: { os: 'linux', architecture: 'arm64' },
  };
  const index = blob(store, 'application/vnd.oci.image.index.v1+json', {
    schemaVersion: 2,
    manifests: [{ ...manifest, platform: { os: 'linux', architecture: 'amd64' } }, absent],
  });
  const reader = fakeStore({ 'registry.example/busybox:1': index }, store);

  it("takes this platform's manifest and what it names, and leaves the other platforms out", async () => {
    const image = await imageBlobs(reader, 'registry.example/busybox:1', 'amd64');
    expect(image.blobs.map((b) => b.digest)).to.deep.equal(
      [index, manifest, config, layer].map((b) => b.digest),
    );
    expect(image.bytes).to.equal([index, manifest, config, layer].reduce((n, b) => n + Number(b.size), 0));
  });

  it('refuses an image whose layer the node no longer holds (discarded after unpacking, or lazily pulled)', async () => {
    const partial = new Map(store);
    partial.delete(layer.digest);
    const err = await imageBlobs(fakeStore({ i: index }, partial), 'i', 'amd64').catch((e: unknown) => e);
    expect(err)
      .to.be.instanceOf(UncopyableImage)
      .with.property('message')
      .that.includes(`the layer ${layer.digest} of i is not in`);
  });

  it('refuses an image with no manifest for this platform', async () => {
    const err = await imageBlobs(reader, 'registry.example/busybox:1', 's390x').catch((e: unknown) => e);
    expect(err)
      .to.be.instanceOf(UncopyableImage)
      .with.property('message')
      .that.matches(/no linux\/s390x manifest/);
  });

  it('writes an OCI archive that tar reads, naming the image as the node does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cc-oci-'));
    try {
      const file = join(dir, 'image.tar');
      const image = await imageBlobs(reader, 'registry.example/busybox:1', 'amd64');
      await writeImageArchive(reader, image, ['registry.example/busybox:1'], file);
      const listing = execFileSync('tar', ['-tf', file], { encoding: 'utf8' }).trim().split('\n');
      expect(listing.slice(0, 2)).to.deep.equal(['oci-layout', 'index.json']);
      expect(listing).to.include(`blobs/sha256/${layer.digest.slice(7)}`);
      const indexJson = JSON.parse(execFileSync('tar', ['-xOf', file, 'index.json'], { encoding: 'utf8' }));
      expect(indexJson.manifests[0]).to.deep.include({ digest: index.digest });
      expect(indexJson.manifests[0].annotations['io.containerd.image.name']).to.equal(
        'registry.example/busybox:1',
      );
      const copied = execFileSync('tar', ['-xOf', file, `blobs/sha256/${layer.digest.slice(7)}`]);
      expect(copied.toString()).to.equal('layer bytes');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
