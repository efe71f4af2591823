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
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../cri/package-root.js';
import type { HostView } from './host-view.js';
import { layoutPaths } from './layout.js';

/** The bridge entry's plugin type in the private conflist (network.ts). */
const WRAPPER = 'conform-bridge';
/** A line both wrapper scripts carry (scripts/lib/runc-slow.sh, cni-slow.sh). */
const WRAPPER_MARK = 'README "The injector wrappers"';
const WRAPPER_MAX_BYTES = 64 << 10;

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
  install('runc-slow.sh', join(p.slowRuntime, 'runc-slow'), 'REAL_RUNC', unwrapped(runc, host));
  // Every plugin of the node, plus the slow bridge wrapper the conflist names.
  const linked = new Set<string>();
  for (const binDir of cniBinDirs) {
    for (const name of safeList(host.path(binDir))) {
      if (linked.has(name) || name === WRAPPER) continue;
      linked.add(name);
      symlinkSync(unwrapped(join(binDir, name), host), join(p.cniBin, name));
    }
  }
  const bridge = cniBinDirs.map((d) => join(d, 'bridge')).find((f) => existsSync(host.path(f)));
  if (bridge === undefined)
    throw new Error(`no CNI bridge plugin in the node's CNI bin dirs (${cniBinDirs.join(', ')})`);
  install('cni-slow.sh', join(p.cniBin, WRAPPER), 'REAL_PLUGIN', unwrapped(bridge, host));
}

/**
 * The binary behind one of cri-conform's own injector wrappers, when the node has one installed (as the
 * README tells a CRI-O user to, as a wrapper named `bridge`); anything else as it is. The copy's
 * wrappers must not run the node's: those log into and take delays from the node's control dirs.
 */
export function unwrapped(nodePath: string, host: HostView): string {
  let text: string;
  try {
    if (statSync(host.path(nodePath)).size > WRAPPER_MAX_BYTES) return nodePath;
    text = readFileSync(host.path(nodePath), 'latin1');
  } catch {
    return nodePath;
  }
  if (!text.startsWith('#!/bin/sh') || !text.includes(WRAPPER_MARK)) return nodePath;
  const real = /^real_(?:runc|plugin)='([^']+)'$/m.exec(text)?.[1];
  return real === undefined || real.startsWith('@') ? nodePath : real;
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
