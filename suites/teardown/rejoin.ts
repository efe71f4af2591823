/**
 * TEAR-07's part of the hang and crash scenarios. After the runtime drops plugin 10 for a hang or a crash,
 * the same plugin (same index and name) registers again and takes the next step's fault. A runtime that
 * refuses it gets a fresh plugin under a new name in its place, so that only TEAR-07 meets the refusal and
 * the scenario's other checks still get their steps. After the last step, a new pod's RunPodSandbox must
 * reach the plugin that came back.
 */
import { type CheckContext, errorMessage, type TestPlugin } from '../../src/harness/face.js';
import { receivedBy } from '../common/events.js';
import { deliveryWithinMs, quietWindowMs } from '../common/timing.js';

export interface Rejoin {
  /** How the connection ended, or undefined when the runtime still held it a quiet window after the call. */
  dropped?: string;
  /** '' when the same plugin registered again; otherwise why it could not. */
  refused: string;
}

/** Whether the plugin that came back last got the RunPodSandbox of a pod made after it registered. */
export interface NewPodProbe {
  podId: string;
  received: boolean;
}

/**
 * Brings plugin 10 back after `what` (its hang or crash on a step): the same plugin when the runtime lets
 * it register again, else `replacement()`.
 */
export async function rejoinOrReplace(
  t: CheckContext,
  plugin: TestPlugin,
  what: string,
  replacement: () => Promise<TestPlugin>,
): Promise<{ plugin: TestPlugin; rejoin: Rejoin }> {
  // The call has returned, so a runtime that drops the plugin has done so; the window covers only the
  // close reaching this process.
  const cause = await plugin.waitDisconnected({ withinMs: quietWindowMs(t) });
  t.step(`plugin ${plugin.label} registers again after ${what}`);
  const refused = await plugin.reconnect().then(() => '', errorMessage);
  const rejoin: Rejoin = { refused, ...(cause ? { dropped: cause.message } : {}) };
  if (refused === '') return { plugin, rejoin };
  t.step(`the runtime refused it (${refused}): a fresh plugin 10 takes its place`);
  return { plugin: await replacement(), rejoin };
}

/** Runs a new pod and reports whether `plugin` got its RunPodSandbox. */
export async function probeWithNewPod(
  t: CheckContext,
  plugin: TestPlugin,
  name: string,
): Promise<NewPodProbe> {
  t.step(`a new pod, whose RunPodSandbox must reach plugin ${plugin.label}`);
  const podId = await t.cri.runPod(t.make.pod(name));
  const got = await receivedBy(plugin, { podId }, ['RunPodSandbox'], deliveryWithinMs(t));
  return { podId, received: got.length > 0 };
}
