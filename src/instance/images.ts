/**
 * The bundled images in the private instance: the OCI archive scripts/build-images.sh writes (built once
 * per content of its inputs into the image cache, shared with scripts/containerd-up.sh), imported with the
 * node's own ctr into the CRI namespace (containerd-setup.ts), or with skopeo into containers-storage
 * (crio-setup.ts).
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

/**
 * Where the worker image keeps the archive it was built with (scripts/build-worker-image.sh): the image
 * has neither bash nor busybox to build one.
 */
export const PREBUILT_ARCHIVE = 'images/cri-conform-images.tar';

/** The prebuilt archive, else the one built into the cache unless it holds it; resolves with its path. */
export async function bundledArchive(cacheDir: string): Promise<string> {
  const root = packageRoot();
  if (existsSync(join(root, PREBUILT_ARCHIVE))) return join(root, PREBUILT_ARCHIVE);
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

/** Runs the node's `ctr ... images import` as built by the caller (HostView.command). */
export async function importArchive(cmd: { file: string; args: string[] }): Promise<void> {
  await exec(cmd.file, cmd.args, { timeout: 120_000 });
}
