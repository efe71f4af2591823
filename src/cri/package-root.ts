/**
 * Where the package's source-tree assets (the .proto files) live, found from the compiled module's own path:
 * dist/src/cri/x.js and src/cri/x.ts both walk up to the directory holding package.json, so the result does
 * not depend on the working directory the CLI was started from.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The nearest ancestor of this module that holds a package.json. Throws if there is none (a broken install). */
export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) {
      cached = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** Absolute path of a .proto file shipped in src/cri/proto. */
export function protoPath(file: string): string {
  return join(packageRoot(), 'src', 'cri', 'proto', file);
}
