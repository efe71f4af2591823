/**
 * IDEM-05's timeout-and-retry for CreateContainer (see scenarios.ts for the pattern). The request is held
 * by an NRI CreateContainer hook delay, or by the slow runtime handler where the runtime creates the OCI
 * container inside CreateContainer (IDEM-07).
 */
import {
  type CheckContext,
  type ContainerConfig,
  type FaultHandle,
  notYet,
  type PodSandboxConfig,
  type ReachWatch,
  type SlowRuntime,
  shortId,
} from '../../src/harness/face.js';
import { describeItems } from '../common/census.js';
import { holdOutcome, holdReached } from '../common/holds.js';
import { SharedPlugin } from '../common/shared-plugin.js';
import { DELAY_MS, deliveryWithinMs, nriHoldMs } from '../common/timing.js';
import { kubeletRetry } from './kubelet-retry.js';
import {
  converge,
  type Ending,
  evidence,
  type FirstAttempt,
  firstAttempt,
  kubeletBackoff,
} from './scenarios.js';
import { untilHandlerHeld } from './slow-handler.js';

/** A delay that holds CreateContainer of one named container in one sandbox. */
export interface ContainerDelay {
  name: string;
  /** The handler the sandbox must run with for the delay to act. */
  runtimeHandler: string;
  /** Holds the next CreateContainer of the container in the pod, `ms` long where the delay lets it choose. */
  arm(podId: string, containerName: string, ms?: number): Promise<void>;
  disarm(): Promise<void>;
  /** How long it holds the create (default DELAY_MS). */
  holdMs?: number;
  /** For an NRI hook hold: resolves once the hook is answered (scenarios.ts HeldBy). */
  holdEnded?: () => Promise<{ reachedAt?: number }>;
  /** For an NRI hook hold: resolves once the hook is reached (scenarios.ts HeldBy). */
  holdReached?: () => Promise<unknown>;
  /** For an NRI hook hold: answers the hook now (scenarios.ts HeldBy). */
  releaseHold?: () => void;
  /** The delay may sit behind the CreateContainer hook (scenarios.ts HeldBy). */
  behindHooks?: boolean;
  /** For a check whose path is where the timeout lands (scenarios.ts HeldBy). */
  watchReach?: () => ReachWatch;
}

/**
 * Holds CreateContainer in the check's NRI plugin 10 (`shared`, one for all trials: shared-plugin.ts),
 * a delay on the CreateContainer hook for one container only, shorter than the runtime's plugin request
 * timeout. Every NRI runtime calls the hook inside CreateContainer; use it where only convergence and
 * duplicates matter, never for reuse (IDEM-07).
 */
export async function nriCreateDelay(
  t: CheckContext,
  shared = new SharedPlugin(t, { index: '10', events: ['CreateContainer'] }),
): Promise<ContainerDelay> {
  const holdMs = nriHoldMs(t, 'CreateContainer');
  let fault: FaultHandle | undefined;
  return {
    name: 'NRI CreateContainer hook delay',
    runtimeHandler: '',
    holdMs,
    arm: async (podId, containerName, ms = holdMs) => {
      fault = (await shared.connected()).fault({
        match: { event: 'CreateContainer', podId, containerName },
        action: { kind: 'delay', ms },
        times: 1,
      });
    },
    disarm: async () => fault?.remove(),
    holdEnded: () => holdOutcome(fault),
    holdReached: () => holdReached(fault, deliveryWithinMs(t)),
    releaseHold: () => fault?.release(),
  };
}

/**
 * The slow runtime handler as a CreateContainer delay: acts where the runtime creates the OCI container
 * there. It holds as long as the first attempt asks: DELAY_MS, plus the lateness learnt where attempts
 * reached it late, whose later deadline it must still outlast.
 */
export function slowHandlerCreateDelay(slow: Pick<SlowRuntime, 'handler' | 'setDelay'>): ContainerDelay {
  return {
    name: `slow runtime handler "${slow.handler}"`,
    runtimeHandler: slow.handler,
    arm: (_podId, _containerName, ms = DELAY_MS) => slow.setDelay(ms),
    disarm: () => slow.setDelay(0),
    behindHooks: true,
  };
}

export interface TimedOutContainer {
  podId: string;
  podConfig: PodSandboxConfig;
  config: ContainerConfig;
  request: { podSandboxId: string; config: ContainerConfig; sandboxConfig: PodSandboxConfig };
  first: FirstAttempt<{ containerId: string }>;
}

/** A CreateContainer whose client gave up while the runtime was still creating it, in a fresh sandbox. */
export async function timeOutCreateContainer(
  t: CheckContext,
  name: string,
  delay: ContainerDelay,
  opts: {
    ending?: Ending;
    notHeld?: (why: string) => never;
    podId?: string;
    podConfig?: PodSandboxConfig;
  } = {},
): Promise<TimedOutContainer> {
  const podConfig = opts.podConfig ?? t.make.pod(name);
  const podId =
    opts.podId ?? (await t.cri.runPod(podConfig, { runtimeHandler: delay.runtimeHandler || undefined }));
  const config = t.make.container('workload');
  const request = { podSandboxId: podId, config, sandboxConfig: podConfig };
  const first = await firstAttempt(
    t,
    `CreateContainer workload in ${shortId(podId)}`,
    {
      name: delay.name,
      setDelay: (ms) => (ms > 0 ? delay.arm(podId, 'workload', ms) : delay.disarm()),
      ...(delay.holdMs !== undefined ? { holdMs: delay.holdMs } : {}),
      ...(delay.holdEnded ? { holdEnded: delay.holdEnded } : {}),
      ...(delay.holdReached ? { holdReached: delay.holdReached } : {}),
      ...(delay.releaseHold ? { releaseHold: delay.releaseHold } : {}),
      ...(delay.behindHooks ? { behindHooks: true } : {}),
      ...(delay.watchReach ? { watchReach: delay.watchReach } : {}),
    },
    opts.ending ?? 'deadline',
    { method: 'CreateContainer', request },
    opts.notHeld,
  );
  return { podId, podConfig, config, request, first };
}

/**
 * Times out a CreateContainer in a fresh sandbox and retries it like the kubelet, without judging whether
 * the retries converged (IDEM-06 counts what was built either way).
 */
export async function retryCreateContainerAfterTimeout(
  t: CheckContext,
  name: string,
  delay: ContainerDelay,
): Promise<TimedOutContainer & { containerId?: string; evidence: string }> {
  const timedOut = await timeOutCreateContainer(t, name, delay);
  await kubeletBackoff(t, timedOut.first);
  t.step(`the identical CreateContainer in ${shortId(timedOut.podId)}, kubelet-like retries`);
  const outcome = await t.cri.retry('CreateContainer', timedOut.request, kubeletRetry(t));
  const containerId = outcome.value?.containerId;
  return {
    ...timedOut,
    ...(containerId ? { containerId } : {}),
    evidence: evidence(timedOut.first, outcome),
  };
}

class NotHeld extends Error {}

/**
 * Why the slow runtime handler cannot hold a CreateContainer, per run: whether the runtime creates the OCI
 * container inside CreateContainer is how it is built, not how a trial's timing fell (containerd creates
 * it at start). The run's injector proof usually finds it before the checks begin (t.inject.createNotHeld);
 * where it could not look, the first variant that finds it says so for the rest. The variants are then not
 * run for that reason, instead of each building a sandbox on the slow handler to find it again (IDEM-12
 * built 40 of them to learn it 40 times, a third of its sandboxes).
 */
export const createNotHeld = {
  byRun: new WeakMap<CheckContext['settings'], string>(),
  of(t: CheckContext): string | undefined {
    return t.inject.createNotHeld() ?? this.byRun.get(t.settings);
  },
  found(t: CheckContext, why: string): string {
    if (!this.byRun.has(t.settings)) this.byRun.set(t.settings, `${why} (found by ${t.id} in this run)`);
    return why;
  },
};

/**
 * Runs a container variant of a sandbox check on the slow runtime handler. When the runtime does not
 * create the OCI container inside CreateContainer, nothing outside NRI can hold it: the variant is then
 * not run (the reason is returned) instead of skipping the whole check. A variant held in an NRI hook
 * (`heldBy`) gets the same treatment, but what it finds says nothing of the slow handler: not recorded.
 */
export async function containerVariant<T>(
  t: CheckContext,
  run: (notHeld: (why: string) => never) => Promise<T>,
  heldBy: 'slow runtime handler' | 'NRI hook' = 'slow runtime handler',
): Promise<T | { notRun: string }> {
  const onSlowHandler = heldBy === 'slow runtime handler';
  const known = onSlowHandler ? createNotHeld.of(t) : undefined;
  if (known !== undefined) return { notRun: known };
  const notHeld = (why: string): never => {
    throw new NotHeld(why);
  };
  return run(notHeld).catch((e: unknown) => {
    if (!(e instanceof NotHeld)) throw e;
    const why = `${e.message}: the runtime creates the OCI container later`;
    return { notRun: onSlowHandler ? createNotHeld.found(t, why) : why };
  });
}

/** Records that a container variant could not run, and why (the check's other variants still decide). */
export function variantNotRun(t: CheckContext, why: string): void {
  t.notRun('container variant', why);
}

/**
 * As timeOutCreateContainer on the slow runtime handler (see containerVariant), with the id it built: the
 * first id the handler logged after this variant began that is not its own sandbox's. The handler's log
 * also holds what the check built before (a sandbox variant's sandboxes), so those are left out by name.
 */
export async function timeOutContainerOnSlowHandler(
  t: CheckContext,
  name: string,
  slow: SlowRuntime,
): Promise<(TimedOutContainer & { builtId: string }) | { notRun: string }> {
  const held = await containerVariant(t, (notHeld) => timeOutHeldContainer(t, name, slow, notHeld));
  if ('notRun' in held) return held;
  const { timedOut, before } = held;
  const builtId = await t.poll(
    async () => {
      const ids = (await slow.createdIds()).filter((id) => !before.has(id));
      return (
        ids.find((id) => id !== timedOut.podId) ??
        notYet(`logged ${ids.length === 0 ? 'nothing' : ids.map(shortId).join(', ')} since the variant began`)
      );
    },
    {
      withinMs: DELAY_MS + t.settings.marginMs,
      what: 'the slow runtime handler to log the container the timed-out request built',
    },
  );
  return { ...timedOut, builtId };
}

/**
 * A CreateContainer timed out in a fresh sandbox on the slow runtime handler, made again in a new sandbox
 * while an attempt gave up before the runtime reached the handler (untilHandlerHeld): such an attempt
 * built nothing to go on with, and the check ended in ERROR waiting for the handler's log. Returned with
 * the handler's log as it was before the attempt that landed.
 */
export function timeOutHeldContainer(
  t: CheckContext,
  name: string,
  slow: SlowRuntime,
  notHeld: (why: string) => never,
): Promise<{ timedOut: TimedOutContainer; before: Set<string> }> {
  const delay: ContainerDelay = { ...slowHandlerCreateDelay(slow), watchReach: slow.watchReach };
  return untilHandlerHeld(t, slow, {
    timeOut: () => timeOutCreateContainer(t, name, delay, { notHeld }),
    what: (c) => `CreateContainer ${c.config.metadata.name} in ${shortId(c.podId)}`,
    resend: (c) => t.cri.retry('CreateContainer', c.request, kubeletRetry(t)),
    fresh: 'a new sandbox',
  });
}

/**
 * IDEM-05's scenario: time out a CreateContainer in a fresh sandbox, retry until it converges (asserted as
 * the check's `clause`).
 */
export async function createContainerAfterTimeout(
  t: CheckContext,
  name: string,
  delay: ContainerDelay,
  clause: string,
  opts: Parameters<typeof timeOutCreateContainer>[3] = {},
): Promise<TimedOutContainer & { containerId: string; evidence: string }> {
  const timedOut = await timeOutCreateContainer(t, name, delay, opts);
  await kubeletBackoff(t, timedOut.first);
  const done = await converge(
    t,
    clause,
    `the identical CreateContainer in ${shortId(timedOut.podId)}`,
    timedOut.first,
    (p) => t.cri.retry('CreateContainer', timedOut.request, p),
    async () =>
      `${describeItems(await t.cri.listContainers({ podId: timedOut.podId, name: timedOut.config.metadata.name }))} with that name in the sandbox`,
  );
  return { ...timedOut, containerId: done.value.containerId, evidence: done.evidence };
}
