/**
 * Sweeping what killed runs left of their private instances: every recorded instance whose run is gone
 * (of one runtime, when a target is given) is removed as its run would have removed it, and the CNI files
 * of instances no record names any more (after a reboot took the records) go by their names (cni-files.ts).
 * `cleanup --isolated`, `run --isolated`, `doctor --isolated` and the Sonobuoy worker sweep before they
 * start; an instance of a run that still runs is never touched.
 */
import { sweepStaleCniFiles } from './cni-files.js';
import { HostView } from './host-view.js';
import { orphanedInstances, recordedInstances } from './instance-file.js';
import { findNodeDaemon } from './node-daemon.js';
import { removeInstance } from './removal.js';

export interface Swept {
  /** Each dead run's instance, with what its removal could not remove (empty: nothing is left). */
  instances: Array<{ dir: string; leftovers: string[] }>;
  /** CNI cache and IPAM files (node paths) of instances nothing records any more. */
  cniFiles: string[];
}

export async function sweepDeadInstances(target: string | undefined, node: HostView): Promise<Swept> {
  const instances: Swept['instances'] = [];
  for (const { dir, info } of orphanedInstances(target))
    instances.push({ dir, leftovers: await removeInstance(dir, info) });
  // Whatever still has a record is a live run's, or one whose removal left something and keeps it.
  const recorded = new Set(recordedInstances().map(({ info }) => info.id));
  return { instances, cniFiles: sweepStaleCniFiles(recorded, node) };
}

/**
 * How this process reaches the node's files: through the daemon serving `endpoint` when this process is
 * in a pod of its own (the worker), else directly.
 */
export function nodeViewOf(endpoint: string): HostView {
  const socket = endpoint.replace(/^unix:\/\//, '');
  try {
    return HostView.of(findNodeDaemon(socket).pid);
  } catch {
    return new HostView(undefined);
  }
}
