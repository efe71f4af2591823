/** The tool's version, read once from package.json next to the build. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageJson(start: string): string {
  let dir = start;
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'package.json');
    try {
      readFileSync(candidate);
      return candidate;
    } catch {
      dir = dirname(dir);
    }
  }
  return join(start, 'package.json');
}

export const TOOL_VERSION: string = (() => {
  try {
    const pkg = JSON.parse(
      readFileSync(findPackageJson(dirname(fileURLToPath(import.meta.url))), 'utf8'),
    ) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
})();
