/**
 * Where a runtime pins its pods' network namespaces when not in /run/netns, as its verbose Status says:
 * containerd with netns_mounts_under_state_dir keeps them in <CRI state dir>/netns, CRI-O in
 * <namespaces_dir>/netns (its info names RuntimeConfig fields by their Go names). Host probes look there
 * too, so that a leaked netns there is seen.
 */
import type { CriClient } from '../../cri/client.js';

const DEFAULT_DIRS = new Set(['/run/netns', '/var/run/netns']);

export function netnsDirsOf(info: Readonly<Record<string, string>>): string[] {
  const dirs: string[] = [];
  for (const text of Object.values(info)) {
    const config = parse(text);
    const crio = config.crio as Record<string, unknown> | undefined;
    if (typeof crio?.NamespacesDir === 'string') dirs.push(`${crio.NamespacesDir}/netns`);
    if (config.netnsMountsUnderStateDir === true && typeof config.stateDir === 'string')
      dirs.push(`${config.stateDir}/netns`);
  }
  return [...new Set(dirs.map((d) => d.replace(/\/+/g, '/')))].filter((d) => !DEFAULT_DIRS.has(d));
}

/** The runtime's own netns folders; none when it does not answer a verbose Status. */
export async function runtimeNetnsDirs(client: CriClient): Promise<string[]> {
  try {
    const status = await client.call('Status', { verbose: true }, { deadlineMs: 10_000 });
    return netnsDirsOf(status.info);
  } catch {
    return [];
  }
}

function parse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
