/**
 * The bundled images in the private instance: the OCI archive scripts/build-images.sh writes (built once
 * per content of its inputs into the image cache, shared with scripts/containerd-up.sh), imported with the
 * node's own ctr into the CRI namespace.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../cri/package-root.js';

const exec = promisify(execFile);
export const BUNDLED_IMAGES = ['localhost/cri-conform/busybox:1', 'localhost/cri-conform/pause:1'];
const BUSYBOX = '/bin/busybox';

/** Builds the archive unless the cache holds it; resolves with its path. */
export async function bundledArchive(cacheDir: string): Promise<string> {
  const root = packageRoot();
  const inputs = ['scripts/build-images.sh', 'scripts/lib/oci-layout.sh', 'fixtures/images/pause.sh'].map(
    (f) => join(root, f),
  );
  const hash = createHash('sha256');
  for (const f of [...inputs, BUSYBOX]) hash.update(readFileSync(f));
  const dir = join(cacheDir, hash.digest('hex').slice(0, 16));
  const archive = join(dir, 'cri-conform-images.tar');
  if (!existsSync(archive))
    await exec('bash', [join(root, 'scripts/build-images.sh'), dir], { timeout: 120_000 });
  return archive;
}

export async function importArchive(ctr: string, socket: string, archive: string): Promise<void> {
  await exec(ctr, ['-a', socket, '-n', 'k8s.io', 'images', 'import', archive], { timeout: 120_000 });
}
