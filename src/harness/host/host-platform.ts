/**
 * The operating system and kernel of the node under test, for reports (a runtime bug report needs both).
 * The kernel is the one this process runs on, which a pod shares with its node; the OS name comes from
 * os-release under CRI_CONFORM_HOST_ROOT when a pod sees the host there, else from this host's, and is
 * left out when that file is absent (a pod that does not mount it would otherwise name its image's OS).
 */
import { readFileSync } from 'node:fs';
import { machine, release, type } from 'node:os';
import { join } from 'node:path';

export interface HostPlatform {
  os?: string;
  kernel: string;
}

export function hostPlatform(hostRoot = process.env.CRI_CONFORM_HOST_ROOT || '/'): HostPlatform {
  const os = prettyName(join(hostRoot, 'etc/os-release'));
  return { ...(os ? { os } : {}), kernel: `${type()} ${release()} ${machine()}` };
}

function prettyName(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const m = /^PRETTY_NAME=(.*)$/m.exec(text);
  return m?.[1]?.trim().replace(/^(["'])(.*)\1$/, '$2') || undefined;
}
