/**
 * A teardown fault scenario run once per run and recorded as data, so that every check with a contract on
 * it (TEAR-01..07 and TEAR-15 on the calls, TEAR-13 on what the host keeps) reads the same run. The plugin
 * that hangs in four teardown hooks costs four plugin timeouts; run for TEAR-04, TEAR-06 and TEAR-13 each,
 * it cost twelve.
 */
import {
  type CheckContext,
  type PodHostSnapshot,
  type PodSandboxConfig,
  skipReason,
} from '../../src/harness/face.js';
import {
  type FaultyTeardownSpec,
  type LivePod,
  type StepOutcome,
  tearDownWithFaultyPlugin,
  witnessGap,
} from './faulty-teardown.js';
import { finishTeardown, leftoversOf } from './leaks.js';
import type { NewPodProbe } from './rejoin.js';

export interface RecordedTeardown {
  podId: string;
  containerId: string;
  podConfig: PodSandboxConfig;
  steps: StepOutcome[];
  /** Whether the plugin 10 that registered again got a new pod's RunPodSandbox (TEAR-07). */
  newPod?: NewPodProbe;
  /** What the witness (plugin 20) missed, '' when nothing; undefined for a scenario without a witness. */
  witnessGap?: string;
  /**
   * After the scenario, the StopPodSandbox and RemovePodSandbox it did not send itself (never one again),
   * then what the host still holds of the live pod's snapshot: '' when nothing; undefined when the host
   * could not be probed (see probeSkipped).
   */
  leftovers?: string;
  /** Why the host was not probed: the skip reason TEAR-13 gives. */
  probeSkipped?: string;
}

export function recordedTeardown(t: CheckContext, spec: FaultyTeardownSpec): Promise<RecordedTeardown> {
  return t.shared(`teardown ${spec.name}`, async () => {
    let probeSkipped: string | undefined;
    // The calls are what TEAR-01..06 judge: a host that cannot be probed only leaves TEAR-13 undecided.
    const snapshot = (pod: LivePod): Promise<PodHostSnapshot | undefined> =>
      t.host.snapshot(pod.podId, [pod.containerId]).catch((e: unknown) => {
        probeSkipped = skipReason(e);
        if (probeSkipped === undefined) throw e;
        return undefined;
      });
    const outcome = await tearDownWithFaultyPlugin(t, spec, t.host.available ? snapshot : undefined);
    const { podId, containerId, podConfig, steps, live, newPod } = outcome;
    const gap = spec.witness ? await witnessGap(t, spec, outcome) : undefined;
    let leftovers: string | undefined;
    if (live) {
      // Before any call is sent again: a runtime that skipped the work on the faulty call and does it on a
      // second, fault-free one still leaves the pod behind for the first.
      const failed = await finishTeardown(t, podId, spec.steps);
      leftovers = [failed && `teardown failed: ${failed}`, await leftoversOf(t, live)]
        .filter(Boolean)
        .join('; ');
    }
    return {
      podId,
      containerId,
      podConfig,
      steps,
      ...(newPod ? { newPod } : {}),
      ...(gap === undefined ? {} : { witnessGap: gap }),
      ...(leftovers === undefined ? {} : { leftovers }),
      ...(probeSkipped === undefined ? {} : { probeSkipped }),
    };
  });
}
