/**
 * Holding a hook while the CRI call that triggered it is in flight (cri-tools' hookReached/hookBlocking
 * shape): arm a hang (or a delay) for one pod only, send the call without awaiting it, wait until the plugin
 * has the event. The caller looks at the runtime, then releases a hang and awaits the reply.
 */
import {
  type CallResult,
  type CheckContext,
  disarmedFirst,
  type EventMatch,
  type FaultAction,
  type FaultHandle,
  type NriEventName,
  type NriEventRecord,
  type PodSandboxConfig,
  type TestPlugin,
} from '../../src/harness/face.js';
import { describeReply } from './replies.js';
import { deliveryWithinMs } from './timing.js';

export interface HeldCall<T> {
  /** The event as the plugin got it, while its reply is held. */
  held: NriEventRecord;
  hold: FaultHandle;
  /** The CRI reply; settles after release (or after the runtime timed the hook out). */
  reply: Promise<CallResult<T>>;
}

/** The call answered before `plugin` ever saw the hook: the reply, and nothing is held. */
export interface Unreached<T> {
  unreached: CallResult<T>;
}

/**
 * Sends `call` with `action` (a hang unless told otherwise) armed on `event` for `match`, and resolves once
 * the hook is reached, or once the call answers without the hook having reached `plugin` (then the fault is
 * disarmed).
 */
export async function tryHoldDuring<T>(
  t: CheckContext,
  plugin: TestPlugin,
  event: NriEventName,
  match: EventMatch,
  call: () => Promise<CallResult<T>>,
  action: FaultAction = { kind: 'hang' },
): Promise<HeldCall<T> | Unreached<T>> {
  const hold = plugin.fault({ match: { ...match, event }, action });
  const reply = call();
  // If the hook is never reached the check fails below; the reply must not become an unhandled rejection.
  void reply.catch(() => undefined);
  // The hook comes inside the call, after the runtime's own setup (network, shim start), which a loaded
  // node can take longer for than a hook's delivery (TEAR-14 on containerd 1.7.24 got its RunPodSandbox
  // hook 6.7 s after the send, and ended in ERROR). The reply ends the wait: only the call's deadline
  // bounds it.
  const reachWithinMs = Math.max(deliveryWithinMs(t), t.settings.callTimeoutMs + t.settings.marginMs);
  const unreached = () => reply.then((r) => ({ unreached: r }));
  const first = await Promise.race([
    // A hold disarmed before its hook (its plugin dropped by the runtime) is never reached: the reply says
    // what became of the call.
    hold.reached({ withinMs: reachWithinMs }).then(
      (held) => ({ held }),
      (e: unknown) => (disarmedFirst(e) ? unreached() : Promise.reject(e)),
    ),
    unreached(),
  ]);
  if ('unreached' in first) {
    hold.remove();
    return first;
  }
  return { held: first.held, hold, reply };
}

/**
 * As tryHoldDuring, but a call that answers without reaching the hook fails the check (as `clause`: the
 * hook is part of the call).
 */
export async function holdDuring<T>(
  t: CheckContext,
  plugin: TestPlugin,
  event: NriEventName,
  match: EventMatch,
  call: () => Promise<CallResult<T>>,
  clause: string,
): Promise<HeldCall<T>> {
  const attempt = await tryHoldDuring(t, plugin, event, match, call);
  t.expect(
    !('unreached' in attempt),
    `the call answered (${'unreached' in attempt ? describeReply(attempt.unreached) : ''}) before plugin ${plugin.label} got its ${event} hook`,
    clause,
  );
  return attempt;
}

/** RunPodSandbox of `config` with its RunPodSandbox hook held at `plugin` (matched by the pod name: no id yet). */
export function holdRunPodSandbox(
  t: CheckContext,
  plugin: TestPlugin,
  config: PodSandboxConfig,
  clause: string,
): Promise<HeldCall<string>> {
  t.step(`hold the RunPodSandbox hook of ${config.metadata.name} at plugin ${plugin.label}`);
  return holdDuring(
    t,
    plugin,
    'RunPodSandbox',
    { podName: config.metadata.name },
    () => t.cri.tryRunPod(config),
    clause,
  );
}

/** A fresh pod whose RunPodSandbox is in flight with its hook held by a new plugin 10 (HOOK-03/04). */
export async function runPodWithHeldRunHook(t: CheckContext, name: string, clause: string) {
  const plugin = await t.nri.plugin({ index: '10', events: ['RunPodSandbox'] });
  const config = t.make.pod(name);
  return { config, ...(await holdRunPodSandbox(t, plugin, config, clause)) };
}

/**
 * Once a fault's hold is over (its hook answered): when the hook was reached (performance.now()), or
 * nothing when it never was.
 */
export async function holdOutcome(fault: FaultHandle | undefined): Promise<{ reachedAt?: number }> {
  if (!fault) return {};
  await fault.answered();
  const reached = await fault.reached({ withinMs: 0 }).catch(() => undefined);
  return reached ? { reachedAt: reached.atMs } : {};
}

/** Resolves once a fault's hook is reached; rejects when it is not within `withinMs` (or was never armed). */
export function holdReached(fault: FaultHandle | undefined, withinMs: number): Promise<NriEventRecord> {
  return fault ? fault.reached({ withinMs }) : Promise.reject(new Error('the hold was never armed'));
}
