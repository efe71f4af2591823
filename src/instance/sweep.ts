/**
 * Sweeping what killed runs left of their private instances: every recorded instance of one runtime whose
 * run is gone is removed as its run would have removed it, and CNI result caches that prove themselves the
 * tool's and done with go too, records or not (after a reboot took them: cni-files.ts).
 * `cleanup --isolated`, `run --isolated`, `doctor --isolated` and the Sonobuoy worker sweep before they
 * start; an instance of a run that still runs is never touched.
 */
import { sweepStaleCniFiles } from './cni-files.js';
import { HostView } from './host-view.js';
import { orphanedInstances } from './instance-file.js';
import { findNodeDaemon } from './node-daemon.js';
import { removeInstance } from './removal.js';

export interface Swept {
  /** Each dead run's instance, with what its removal could not remove (empty: nothing is left). */
  instances: Array<{ dir: string; leftovers: string[] }>;
  /** CNI result caches (node paths) of the tool's pods whose network namespace is gone. */
  cniFiles: string[];
}

export async function sweepDeadInstances(target: string, node: HostView): Promise<Swept> {
  const instances: Swept['instances'] = [];
  for (const { dir, info } of orphanedInstances(target))
    instances.push({ dir, leftovers: await removeInstance(dir, info) });
  return { instances, cniFiles: sweepStaleCniFiles(node) };
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
