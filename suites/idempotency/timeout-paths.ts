/**
 * Every place a creation's timeout can land, as IDEM-14 and IDEM-16 drive them: inside the runtime's
 * create (the slow runtime handler) or network setup (the slow CNI), for IDEM-14; inside an NRI Run hook
 * (the check's plugin delays it), for IDEM-16; each for a sandbox and for a container where the runtime can
 * be held there. Each path is ended by a deadline or by a client cancel.
 */
import type { CheckContext, FaultHandle, RetryAttempt } from '../../src/harness/face.js';
import { holdOutcome, holdReached } from '../common/holds.js';
import { SharedPlugin } from '../common/shared-plugin.js';
import { CONVERGE_WITHIN_MS, deliveryWithinMs, nriHoldMs } from '../common/timing.js';
import type { TrialEvidence } from '../common/trial-leftovers.js';
import {
  type ContainerDelay,
  containerVariant,
  nriCreateDelay,
  slowHandlerCreateDelay,
  timeOutCreateContainer,
} from './container-scenarios.js';
import { kubeletRetry } from './kubelet-retry.js';
import {
  type Delay,
  type Ending,
  evidence,
  kubeletBackoff,
  slowHandlerDelay,
  timeOutRunPod,
} from './scenarios.js';

/** Paths held by a delay injector: they stall nothing but the check's own pods. */
export type InjectorPath = 'sandbox: runtime create' | 'sandbox: network setup' | 'container: runtime create';
/** Paths held in an NRI hook: they stall every pod's hooks while they hold. */
export type NriPath = 'sandbox: NRI Run hook' | 'container: NRI Run hook';
export type TimeoutPath = InjectorPath | NriPath;

export type PathRun =
  | {
      /** The converged pod, when the retries reached one. */
      podId?: string;
      line: string;
      /** Why the timeout landed before the path's delay (FirstAttempt.missedDelay), when it did. */
      missedDelay?: string;
      /** With missedDelay: the next first attempt on the path gives up later (FirstAttempt.laterNext). */
      laterNext?: boolean;
      /** What each retry got, for what a retry's own timed-out build left (retry-builds.ts). */
      retries: readonly RetryAttempt[];
    }
  /** The path could not be held on this runtime (nothing timed out there): no trial of it happened. */
  | { notHeld: string };

/** What the injectors log that tells a trial its ids and, from the slow CNI, each sandbox's netns. */
type InjectorLogs = Parameters<TrialEvidence['fromInjectors']>[0];

/**
 * The injectors' logs of this check, claimed before the trial makes a pod: every pod goes through the slow
 * CNI wrapper, whatever path holds it, so its `added.log` names each sandbox's netns (a netns the attempt
 * left with no process in it is blamed only so); the slow runtime handler logs what it created.
 */
function injectorLogs(t: CheckContext): InjectorLogs {
  const slow = t.inject.offers('slow-runtime') === undefined ? t.inject.slowRuntime() : undefined;
  const cni = t.inject.offers('slow-cni') === undefined ? t.inject.slowCni() : undefined;
  if (!cni) t.step("no slow CNI wrapper: an attempt's netns is known only by the processes seen in it");
  return { ...(slow ? { createdIds: slow.createdIds } : {}), ...(cni ? { added: cni.added } : {}) };
}

/** The injector paths this run can drive, in the order trials take them. */
export function injectorPaths(t: CheckContext): InjectorPath[] {
  const offered: Record<InjectorPath, boolean> = {
    'sandbox: runtime create': t.inject.offers('slow-runtime') === undefined,
    'sandbox: network setup': t.inject.offers('slow-cni') === undefined,
    'container: runtime create': t.inject.offers('slow-runtime') === undefined,
  };
  return INJECTOR_PATHS.filter((p) => offered[p]);
}

/** Every injector path, in the order trials take them. */
export const INJECTOR_PATHS: readonly InjectorPath[] = [
  'sandbox: runtime create',
  'sandbox: network setup',
  'container: runtime create',
];

/**
 * The clause a timeout path's leftovers break: "sandbox: network setup" -> "sandbox-network-setup". Each
 * path is a clause of its own, so the self-test proves every path with a mutant that leaks only there.
 */
export function clauseOfPath(path: TimeoutPath): string {
  return path.toLowerCase().replace(/[^a-z]+/g, '-');
}

/** The clauses of a check that drives these paths, for its CheckSpec (each path's leftovers). */
export function pathClauses<P extends TimeoutPath>(paths: readonly P[]): Record<string, string> {
  return Object.fromEntries(
    paths.map((p) => [clauseOfPath(p), `after a timeout in ${p}, the host holds nothing of the attempt`]),
  );
}

/** The NRI paths, in the order trials take them (the run offers NRI or skips the check before it). */
export const NRI_PATHS: readonly NriPath[] = ['sandbox: NRI Run hook', 'container: NRI Run hook'];

/** Trial n takes the paths in turn; each later round flips the ending, so every path meets both. */
export function pathOfTrial(
  paths: readonly TimeoutPath[],
  trial: number,
): { path: TimeoutPath; ending: Ending } {
  const i = trial - 1;
  const k = i % paths.length;
  const round = Math.floor(i / paths.length);
  // Alternate endings over the paths, and swap them each round; by the path's index, not the trial's, or
  // with an odd number of paths every round would give each path the same ending again.
  const deadlineFirst = (k + round) % 2 === 0;
  return { path: paths[k] as TimeoutPath, ending: deadlineFirst ? 'deadline' : 'cancel' };
}

/** The check's plugin 10 for the NRI paths, shared by every trial (shared-plugin.ts says why). */
export function nriPathsPlugin(t: CheckContext): SharedPlugin {
  return new SharedPlugin(t, { index: '10', events: ['RunPodSandbox', 'CreateContainer'] });
}

/**
 * Drives one path: the timed-out first attempt, then kubelet-like retries (their outcome is recorded).
 * `nri`: the check's plugin for the NRI paths (nriPathsPlugin).
 */
export async function driveTimeoutPath(
  t: CheckContext,
  path: TimeoutPath,
  ending: Ending,
  seen: TrialEvidence,
  nri: SharedPlugin | undefined,
): Promise<PathRun> {
  const logs = injectorLogs(t);
  const hooks = () => {
    t.require(nri !== undefined, `path ${path} needs the check's NRI plugin`);
    return nri;
  };
  if (path.startsWith('sandbox')) return timeOutSandbox(t, sandboxDelay(t, path, hooks), ending, seen, logs);
  const slow = path === 'container: runtime create' ? t.inject.slowRuntime() : undefined;
  // The path is where the timeout lands: a trial whose timeout came before the runtime reached the slow
  // handler runs again (scenarios.ts landedBeforeDelay).
  const delay: ContainerDelay = slow
    ? { ...slowHandlerCreateDelay(slow), watchReach: slow.watchReach }
    : await nriCreateDelay(t, hooks());
  const held = await containerVariant(
    t,
    async (notHeld) => {
      const pod = t.make.pod(t.id.toLowerCase());
      const podId = await t.cri.runPod(pod, { runtimeHandler: delay.runtimeHandler || undefined });
      seen.add(podId);
      const options = { ending, podId, podConfig: pod, notHeld };
      return { podId, timedOut: await timeOutCreateContainer(t, t.id.toLowerCase(), delay, options) };
    },
    slow ? 'slow runtime handler' : 'NRI hook',
  );
  // A runtime that creates the OCI container later (containerd: at start) cannot be held here.
  if ('notRun' in held) return { notHeld: held.notRun };
  const { podId, timedOut } = held;
  await seen.fromInjectors(logs);
  await seen.look();
  await kubeletBackoff(t, timedOut.first);
  const outcome = await t.cri.retry('CreateContainer', timedOut.request, {
    ...kubeletRetry(t),
    budgetMs: CONVERGE_WITHIN_MS,
  });
  if (outcome.value) await t.cri.startContainer(outcome.value.containerId);
  await seen.fromInjectors(logs);
  return {
    podId,
    line: evidence(timedOut.first, outcome),
    retries: outcome.attempts,
    ...missedDelayOf(timedOut.first),
  };
}

function missedDelayOf(first: { missedDelay?: string; laterNext?: boolean }): {
  missedDelay?: string;
  laterNext?: boolean;
} {
  return first.missedDelay ? { missedDelay: first.missedDelay, laterNext: first.laterNext === true } : {};
}

function sandboxDelay(t: CheckContext, path: TimeoutPath, nri: () => SharedPlugin): Delay {
  if (path === 'sandbox: runtime create') {
    const slow = t.inject.slowRuntime();
    return { ...slowHandlerDelay(slow), watchReach: slow.watchReach };
  }
  if (path === 'sandbox: network setup') {
    const cni = t.inject.slowCni();
    return { name: 'slow CNI wrapper', runtimeHandler: '', setDelay: (ms) => cni.setDelay(ms) };
  }
  return nriRunHookDelay(t, nri());
}

/**
 * Holds the RunPodSandbox of one pod in the check's plugin 10, below the runtime's plugin request timeout;
 * the retries are not held. The held attempt takes its turn among the trials (t.oneAtATime), since the
 * runtime delivers hooks one at a time.
 */
function nriRunHookDelay(t: CheckContext, shared: SharedPlugin): Delay {
  const holdMs = nriHoldMs(t, 'RunPodSandbox');
  let fault: FaultHandle | undefined;
  return {
    name: 'NRI RunPodSandbox hook delay',
    runtimeHandler: '',
    holdMs,
    setDelay: async (ms, podName) => {
      fault?.remove();
      if (ms <= 0) return;
      t.require(podName !== undefined, 'the NRI RunPodSandbox hook delay needs the name of the pod it holds');
      fault = (await shared.connected()).fault({
        match: { event: 'RunPodSandbox', podName },
        action: { kind: 'delay', ms },
        times: 1,
      });
    },
    holdEnded: () => holdOutcome(fault),
    holdReached: () => holdReached(fault, deliveryWithinMs(t)),
    releaseHold: () => fault?.release(),
  };
}

async function timeOutSandbox(
  t: CheckContext,
  delay: Delay,
  ending: Ending,
  seen: TrialEvidence,
  logs: InjectorLogs,
): Promise<PathRun> {
  const timedOut = await timeOutRunPod(t, t.id.toLowerCase(), delay, ending);
  await seen.fromInjectors(logs);
  await seen.look();
  await kubeletBackoff(t, timedOut.first);
  // Whether the retries converge is IDEM-01's and IDEM-12's verdict; here it is only recorded.
  const outcome = await t.cri.retry('RunPodSandbox', timedOut.request, kubeletRetry(t));
  await seen.fromInjectors(logs);
  const podId = outcome.value?.podSandboxId;
  return {
    ...(podId ? { podId } : {}),
    line: evidence(timedOut.first, outcome),
    retries: outcome.attempts,
    ...missedDelayOf(timedOut.first),
  };
}
