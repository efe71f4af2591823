/**
 * Stopping the processes of the run's own ids that the runtime lost track of (NodeHostProbe.endStrays),
 * once the CRI's lists say which ids it still serves: a run's final sweep does it for its own ids, and
 * `cleanup` for the ids that runs killed before their sweep recorded.
 */
import type { CriClient } from '../../cri/client.js';
import type { NodeHostProbe, Strays } from './host-probe.js';

/** Undefined when the CRI could not list: an id it still serves cannot then be told from a lost one. */
export async function stopLostProcesses(client: CriClient, host: NodeHostProbe): Promise<Strays | undefined> {
  const [pods, containers] = await Promise.all([
    client.call('ListPodSandbox', { filter: null }),
    client.call('ListContainers', { filter: null }),
  ]).catch(() => [undefined, undefined]);
  if (!pods || !containers) return undefined;
  const listed = new Set([...pods.items.map((p) => p.id), ...containers.containers.map((c) => c.id)]);
  return host.endStrays(listed);
}

/** "2 processes of this run's own sandboxes or containers". */
export function lostProcesses(n: number, whose: string): string {
  return `${n} process${n === 1 ? '' : 'es'} of ${whose} own sandboxes or containers`;
}
