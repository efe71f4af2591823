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
import type { SharedPlugin } from './shared-plugin.js';
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

/** A call held in its hook, what the check saw meanwhile, and the reply (which settles after release). */
export interface LookedWhileHeld<T, L> {
  held: NriEventRecord;
  seen: L;
  reply: Promise<CallResult<T>>;
}

/**
 * Sends `call` with its `event` hook held at `plugin`, runs `look` while the hook is held, then releases it,
 * all in one turn of the hook lane (t.oneAtATime): the runtime delivers hooks one at a time, so the hold
 * must neither wait behind another check's nor keep another's waiting for longer than the look. The plugin
 * registers again first if another check's hold got it dropped (shared-plugin.ts). A call that answers
 * without reaching the hook fails the check (as `clause`: the hook is part of the call).
 */
export function lookWhileHeld<T, L>(
  t: CheckContext,
  shared: SharedPlugin,
  hook: { event: NriEventName; match: EventMatch; clause: string },
  call: () => Promise<CallResult<T>>,
  look: (held: NriEventRecord) => Promise<L>,
): Promise<LookedWhileHeld<T, L>> {
  return t.oneAtATime(`held ${hook.event} hook`, async () => {
    const plugin = await shared.connected();
    const attempt = await tryHoldDuring(t, plugin, hook.event, hook.match, call);
    t.expect(
      !('unreached' in attempt),
      `the call answered (${'unreached' in attempt ? describeReply(attempt.unreached) : ''}) before plugin ${plugin.label} got its ${hook.event} hook`,
      hook.clause,
    );
    try {
      return { held: attempt.held, seen: await look(attempt.held), reply: attempt.reply };
    } finally {
      attempt.hold.release();
    }
  });
}

/**
 * RunPodSandbox of `config`, looked at by `look` while its RunPodSandbox hook is held at `plugin` (matched
 * by the pod name: no id yet).
 */
export function lookWhileRunHookHeld<L>(
  t: CheckContext,
  plugin: SharedPlugin,
  config: PodSandboxConfig,
  clause: string,
  look: (held: NriEventRecord) => Promise<L>,
): Promise<LookedWhileHeld<string, L>> {
  t.step(`hold the RunPodSandbox hook of ${config.metadata.name}`);
  const hook = { event: 'RunPodSandbox', match: { podName: config.metadata.name }, clause } as const;
  return lookWhileHeld(t, plugin, hook, () => t.cri.tryRunPod(config), look);
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
