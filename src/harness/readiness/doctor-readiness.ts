/**
 * Doctor's readiness, with a run's care for what its pods leave: containerd 2.1 may lose the shim of a
 * proof pod stopped by two clients at once (beside a kubelet), and nothing else would ever stop it. So
 * doctor learns the ids of the pods it makes, records them while it runs in a pod-log folder of its own,
 * as a run does (so `cleanup` stops what the runtime lost of a killed doctor), and ends with a run's final
 * stray stop, which touches no process but one of those ids.
 */
import type { CriClient } from '../../cri/client.js';
import type { Check } from '../check/check.js';
import { newRunId } from '../core/labels.js';
import type { RunConfig } from '../core/settings.js';
import { claimRunLogs, otherLiveRuns, ownIdsRecorder, removeRunLogs } from '../host/pod-logs.js';
import { currentOwner } from '../host/run-owner.js';
import { NodeHostProbe } from '../runtime/host-probe.js';
import { endLostProcesses } from '../runtime/lost-processes.js';
import { assessReadiness } from './readiness.js';
import type { Readiness } from './readiness-types.js';

/** @param note where the final sweep says what it stopped, as a run's notes do */
export async function doctorReadiness(
  client: CriClient,
  config: RunConfig,
  checks: readonly Check[],
  note: (text: string) => void,
): Promise<Readiness> {
  // Not the proof's folder: that one goes with the proof, before the stray stop below.
  const ownFolder = newRunId();
  // Named for runs on other runtimes, whose injector settings it leaves alone; a run beside it goes ahead.
  claimRunLogs(ownFolder, currentOwner(), {
    endpoint: config.runtimeEndpoint,
    claimedAt: Date.now(),
    by: 'doctor',
  });
  let readiness: Readiness | undefined;
  // Ids the stray stop could not keep for cleanup stay in the folder, which cleanup reads once doctor ends.
  let kept = true;
  try {
    readiness = await assessReadiness(
      client,
      config,
      checks,
      'doctor',
      ownIdsRecorder(ownFolder, config.runtimeEndpoint),
    );
    if (readiness.host instanceof NodeHostProbe)
      kept = await endLostProcesses(
        client,
        readiness.host,
        { runId: ownFolder, endpoint: config.runtimeEndpoint },
        "doctor's",
        note,
      );
    return readiness;
  } finally {
    // Last, as a run's: it holds the ids a doctor killed before its stray stop leaves to `cleanup`.
    const logs = kept ? removeRunLogs(ownFolder) : undefined;
    if (logs) note(`final sweep: ${logs}`);
    // After the stray stop, as a run's: a process it stopped may have kept a pod's cgroup below the parent.
    readiness?.cgroupLease.release(otherLiveRuns(ownFolder));
  }
}
