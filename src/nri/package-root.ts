/**
 * Finds files shipped beside the compiled code. dist/src/nri/x.js and src/nri/x.ts sit at different
 * depths, so the package root is found by walking up to the nearest package.json.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest directory at or above `fromUrl`'s directory that holds a package.json. */
export function findPackageRoot(fromUrl: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(fromUrl));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(fromUrl)}`);
    dir = parent;
  }
}

/** Absolute path of one of the NRI layer's .proto files (src/nri/proto/<name>). */
export function nriProtoPath(name: string): string {
  return join(findPackageRoot(), 'src', 'nri', 'proto', name);
}
