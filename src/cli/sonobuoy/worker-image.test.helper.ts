/**
 * The fleet image for the real-runtime test: built by scripts/build-worker-image.sh from this checkout,
 * cached in the throwaway containerd's own dir (removed with it) by a hash of everything that goes into it, and
 * imported into an instance's k8s.io namespace (where CRI finds it).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../e2e-env.test.helper.js';

const run = promisify(execFile);
const BUILDER = join(ROOT, 'scripts/build-worker-image.sh');
export const ARCHIVE = 'cri-conform-image.tar';

/** What the image is made of: the builders, the package's files, the lock file and the node binary. */
function inputsKey(): string {
  const hash = createHash('sha256');
  const files = [
    BUILDER,
    join(ROOT, 'scripts/lib/oci-layout.sh'),
    join(ROOT, 'scripts/build-images.sh'),
    join(ROOT, 'fixtures/images/pause.sh'),
    join(ROOT, 'package.json'),
    join(ROOT, 'package-lock.json'),
    ...walk(join(ROOT, 'bin')),
    ...walk(join(ROOT, 'dist')).filter((f) => /\.js$/.test(f) && !/\.test(\.helper)?\.js$/.test(f)),
    ...walk(join(ROOT, 'src/cri/proto')),
    ...walk(join(ROOT, 'src/nri/proto')),
  ];
  for (const f of files.sort()) hash.update(f).update(readFileSync(f));
  hash.update(process.execPath).update(process.version);
  return hash.digest('hex').slice(0, 16);
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

/** The archive for this checkout: built once per content under `<cacheRoot>/worker-image/<key>/`. */
export async function ensureWorkerImage(cacheRoot: string): Promise<{ archive: string; built: boolean }> {
  const base = join(cacheRoot, 'worker-image');
  const key = inputsKey();
  const archive = join(base, key, ARCHIVE);
  if (existsSync(archive)) return { archive, built: false };
  // Older builds of other checkouts' contents are of no further use.
  if (existsSync(base))
    for (const old of readdirSync(base)) rmSync(join(base, old), { recursive: true, force: true });
  mkdirSync(dirname(archive), { recursive: true });
  // This machine's architecture only: the pods here run that one, and the other's binaries come from the
  // network (the published image has both: scripts/build-worker-image.sh without --platforms).
  const platform = process.arch === 'arm64' ? 'arm64' : 'amd64';
  await run('bash', [BUILDER, '--platforms', platform, dirname(archive)], { cwd: ROOT, maxBuffer: 16 << 20 });
  return { archive, built: true };
}

/** Imports the archive with the ctr that matches the instance (containerd-up.sh records its version). */
export async function importImage(containerdDir: string, archive: string): Promise<void> {
  const marker = readFileSync(join(containerdDir, '.cri-conform-containerd'), 'utf8');
  const ctr = /^version=2\./m.test(marker)
    ? join(process.env.CRI_CONFORM_CONTAINERD21_DIR ?? '/opt/cri-conform/containerd-2.1', 'usr/bin/ctr')
    : '/usr/bin/ctr';
  await run(ctr, ['-a', join(containerdDir, 'containerd.sock'), '-n', 'k8s.io', 'images', 'import', archive]);
}
