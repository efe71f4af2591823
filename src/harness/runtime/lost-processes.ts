/**
 * Stopping the processes of the run's own ids that the runtime lost track of (NodeHostProbe.endStrays),
 * once the CRI's lists say which ids it still serves: a run's final sweep and doctor's do it for their own
 * ids, and `cleanup` for the ids that runs killed before their sweep recorded.
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

/**
 * The final sweep's stray stop, said in its words through `note`: the same for a run and for doctor, whose
 * proof pods can lose a shim just the same. `whose` owns the ids: "this run's", "doctor's".
 */
export async function endLostProcesses(
  client: CriClient,
  host: NodeHostProbe,
  whose: string,
  note: (text: string) => void,
): Promise<void> {
  const strays = await stopLostProcesses(client, host);
  if (!strays) return;
  const what = (n: number) => lostProcesses(n, whose);
  if (strays.ended.length > 0)
    note(
      `final sweep stopped ${what(strays.ended.length)} that the runtime had lost track of (no CRI object, no record of it; a runtime bug, as IDEM-14 reports): ${strays.ended.join('; ')}`,
    );
  if (strays.left.length > 0)
    note(
      `final sweep left running ${what(strays.left.length)} that the CRI no longer lists (the runtime's own records could not be read to tell whether it still keeps them, or the process outlived SIGKILL): ${strays.left.join('; ')}`,
    );
}

/** "2 processes of this run's own sandboxes or containers". */
export function lostProcesses(n: number, whose: string): string {
  return `${n} process${n === 1 ? '' : 'es'} of ${whose} own sandboxes or containers`;
}
