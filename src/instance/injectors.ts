/**
 * The injectors in the private instance, as scripts/containerd-up.sh installs them in a throwaway one:
 * the slow runc wrapper (handler conform-slow) and the slow CNI wrapper around the node's bridge plugin,
 * with their control directories. The wrapper scripts ship in the npm package.
 */
import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../cri/package-root.js';
import type { HostView } from './host-view.js';
import { layoutPaths } from './layout.js';

/** The bridge entry's plugin type in the private conflist (network.ts). */
const WRAPPER = 'conform-bridge';

/** `runc` and `cniBinDirs` are node paths: the wrappers and links are followed by the node's daemon. */
export function installInjectors(
  dir: string,
  runc: string,
  cniBinDirs: readonly string[],
  host: HostView,
): void {
  const p = layoutPaths(dir);
  writeFileSync(join(p.slowRuntime, 'created.log'), '');
  writeFileSync(join(p.slowRuntime, 'delay-ms'), '0\n');
  writeFileSync(join(p.slowCni, 'delay-ms'), '0\n');
  install('runc-slow.sh', join(p.slowRuntime, 'runc-slow'), 'REAL_RUNC', runc);
  // Every plugin of the node, plus the slow bridge wrapper the conflist names.
  const linked = new Set<string>();
  for (const binDir of cniBinDirs) {
    for (const name of safeList(host.path(binDir))) {
      if (linked.has(name) || name === WRAPPER) continue;
      linked.add(name);
      symlinkSync(join(binDir, name), join(p.cniBin, name));
    }
  }
  const bridge = cniBinDirs.map((d) => join(d, 'bridge')).find((f) => existsSync(host.path(f)));
  if (bridge === undefined)
    throw new Error(`no CNI bridge plugin in the node's CNI bin dirs (${cniBinDirs.join(', ')})`);
  install('cni-slow.sh', join(p.cniBin, WRAPPER), 'REAL_PLUGIN', bridge);
}

function install(script: string, to: string, placeholder: string, value: string): void {
  const text = readFileSync(join(packageRoot(), 'scripts/lib', script), 'utf8');
  // Never through a link: the path could name one of the node's own files.
  rmSync(to, { force: true });
  writeFileSync(to, text.replace(`@${placeholder}@`, value));
  chmodSync(to, 0o755);
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
