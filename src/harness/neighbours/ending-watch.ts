/**
 * Beside a detected kubelet, one NRI plugin for the whole run that hears the teardown events of the run's
 * own objects and shows each to every running check (disturbance-monitor.ts). A kubelet's stop sends its
 * NRI event early in the call, before the pod reads NOTREADY: an event for an object a check still has,
 * heard before the check's own Stop or Remove went out, is another client's doing even for a check with no
 * plugin of its own (IDEM-01 reading READY just after the kubelet's StopPodSandbox began; TEAR-11).
 *
 * It answers every event at once and adjusts nothing; events of objects without the run's label are
 * answered without a look. It registers once, before the first check, as the readiness probe plugin does
 * on every run. If the runtime drops it (a restart), the run goes on with its listings alone.
 */
import { NriPlugin } from '../../nri/plugin.js';
import type { NriEventName, NriEventRecord } from '../../nri/types.js';
import { errorMessage } from '../core/errors.js';
import { isOurPod } from '../core/labels.js';

const TEARDOWN_EVENTS: readonly NriEventName[] = [
  'StopPodSandbox',
  'RemovePodSandbox',
  'StopContainer',
  'RemoveContainer',
];
const WATCH_PLUGIN = { name: 'cri-conform-watch', index: '99' };
const REGISTRATION_MS = 6_000;

export interface EndingWatch {
  close(): Promise<void>;
}

/** Starts the watch; returns why not when the runtime refused the plugin. */
export async function startEndingWatch(
  socketPath: string,
  runId: string,
  onEvent: (e: NriEventRecord) => void,
): Promise<EndingWatch | { unavailable: string }> {
  try {
    return await NriPlugin.start({
      socketPath,
      ...WATCH_PLUGIN,
      events: TEARDOWN_EVENTS,
      // The run's own pods (and so their containers) only: every mark (labels.ts), never the label alone.
      acceptsPod: (pod) => isOurPod({ labels: pod.labels, metadata: pod }, runId),
      onEvent,
      registrationTimeoutMs: REGISTRATION_MS,
    });
  } catch (e) {
    return { unavailable: `the NRI watch plugin did not register: ${errorMessage(e)}` };
  }
}
