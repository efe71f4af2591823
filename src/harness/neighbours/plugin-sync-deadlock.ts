/**
 * Beside a kubelet, no NRI plugin may register where that can deadlock the node's runtime. containerd's
 * RemovePodSandbox takes the NRI plugin-sync read lock (BlockPluginSync) and takes it again in the
 * RemoveContainer it calls for each container of the pod (internal/cri/server/sandbox_remove.go:49 and
 * container_remove.go:48 in v2.1.9 to v2.3.4 and v2.4.0-beta.0; pkg/cri/server/ in 1.7). A plugin that
 * registers in between queues for the write side (the vendored NRI adaptation's syncLock, a sync.RWMutex),
 * Go's RWMutex then blocks the nested read, and every later lifecycle call hangs until a restart: TEAR-16.
 * The lock came with containerd#10085 in 1.7.26 and 2.0.3 (1.7.25, 2.0.0-2.0.2 and earlier take none), and
 * every release since takes it twice. The registration gate (registration-gate.ts) keeps a run's own
 * removals and registrations apart, but a kubelet removes pods whenever it likes: so beside one, on those
 * versions, and wherever the version is unknown, NRI checks skip and no probe plugin registers.
 */
import { leadingVersion, parseVersionRange } from '../core/version-range.js';

/** The containerd releases whose RemovePodSandbox takes the plugin-sync read lock twice. */
export const NESTED_PLUGIN_SYNC_LOCK = parseVersionRange('>=1.7.26 <2.0.0 || >=2.0.3');

/** Why no NRI plugin may register on this runtime beside a kubelet, or undefined when one may. */
export function pluginSyncDeadlockRisk(runtime: { name: string; version: string }): string | undefined {
  const run = 'run them with --isolated, on a private instance no kubelet uses';
  if (leadingVersion(runtime.version) === undefined)
    return `NRI checks skip beside a kubelet: the runtime's version ("${runtime.version}") is unknown, and on containerd from 1.7.26 and 2.0.3 on a plugin that registers while the kubelet removes a pod deadlocks the runtime (TEAR-16); ${run}`;
  if (/containerd/i.test(runtime.name) && NESTED_PLUGIN_SYNC_LOCK.test(runtime.version))
    return `NRI checks skip beside a kubelet: on ${runtime.name} ${runtime.version} a plugin that registers while the kubelet removes a pod with a container deadlocks the runtime (RemovePodSandbox takes the NRI plugin-sync lock again in RemoveContainer: containerd ${NESTED_PLUGIN_SYNC_LOCK.text}; TEAR-16); ${run}`;
  return undefined;
}
