/**
 * Proves that the delay injectors work as the run's checks use them, not only that they are configured:
 * through a claim (pods/<key>/ in each control dir, key `cc-doctor-`), with the same CheckInjectors a
 * check gets. Every pod is labelled like every object of a run (so `cri-conform cleanup` finds it if the
 * process is killed) and removed again whatever happens.
 * - Slow runtime handler: the sandbox's create lands in created.log under the key; then, with the claim's
 *   delay set, CreateContainer + StartContainer in that pod take at least that long and the container's
 *   create is logged under the key too (containerd runs runc create at StartContainer, others at Create:
 *   whether the line is there when CreateContainer returns tells which, for checks that need the handler
 *   to hold CreateContainer itself).
 * - Slow CNI: with the claim's delay set, RunPodSandbox takes at least that long and added.log has the
 *   ADD under the key; StopPodSandbox puts the DEL in del.log under the key; with the claim's `fail`
 *   file, a second pod's ADD is logged and its RunPodSandbox fails.
 * A wrapper that misses any of these is broken, and the proof names each thing it lacks: a run's checks
 * would ERROR on it. Each delay is a lower bound on a latency the tool measured itself: load makes a call
 * slower, never faster, so a working injector is never reported broken.
 */
import type { CriClient } from '../../cri/client.js';
import type { PodSandboxConfig } from '../../cri/types.js';
import { createConfigFactory, podNamePrefix, withPodLabels } from '../check/config-factory.js';
import type { ConfigFactory, SlowCni, SlowRuntime } from '../check/context.js';
import { errorMessage } from '../core/errors.js';
import type { InjectorConfig } from '../core/injector-needs.js';
import { newRunId } from '../core/labels.js';
import { claimRunLogs, makeContainerLogDir, removeRunLogs } from '../host/pod-logs.js';
import { CheckInjectors, CLAIMS_DIR, howLogged } from '../injectors/injectors.js';
import { removeLabelledUntilGone } from '../runtime/cleanup.js';
import { ProofPodWatch } from './proof-disturbance.js';

/** Well above a pod's own setup time on an idle node (70-220 ms), and short enough for doctor to stay quick. */
export const PROOF_DELAY_MS = 500;
/** The check label of the proof pods: `cri-conform.io/check=DOCTOR`, names `cc-doctor-injectors-<token>`. */
export const PROOF_CHECK_ID = 'DOCTOR';
/** The key of the proof's claims, as a check's is its pod name prefix. */
const KEY = podNamePrefix(PROOF_CHECK_ID);
const CLAIM = `${CLAIMS_DIR}/${KEY}/`;
const SWEEP_MS = 30_000;
const WHERE = 'see README "The injector wrappers"';

export interface ProofPlan {
  runtime?: { handler: string; dir: string };
  cni?: { dir: string };
  /** The pod's handler when the slow runtime handler is not being proven. */
  defaultHandler: string;
  testImage: string;
  /** The run's cgroup parent: a proof pod is placed as every pod of the run. */
  cgroupParent: string;
  /** False when the test image is missing (doctor does not pull): the handler's delay cannot be shown. */
  canRunContainer: boolean;
  /**
   * A kubelet drives the runtime (a run --beside-kubelet): it stops pods it does not know, and a kill of
   * the proof's container between its create and start shows only as a failed start, like a broken one.
   */
  besideKubelet?: boolean;
}

export interface ProofOutcome {
  verdict: 'works' | 'broken' | 'unproven';
  detail: string;
  /** Slow runtime handler: the runtime ran the container's OCI create only at StartContainer. */
  createsAtStart?: boolean;
}

export interface ProofResult {
  runtime?: ProofOutcome;
  cni?: ProofOutcome;
  /**
   * Set when the proof pod failed and a plain pod (default handler, no delays) failed too: the runtime
   * cannot run a pod at all, so the injectors are not the cause. The runtime's own error.
   */
  plainPodFailure?: string;
  cleanupProblems: string[];
}

interface Proof {
  client: CriClient;
  plan: ProofPlan;
  make: ConfigFactory;
  result: ProofResult;
}

export async function proveInjectors(client: CriClient, plan: ProofPlan): Promise<ProofResult> {
  const runId = newRunId();
  const result: ProofResult = { cleanupProblems: [] };
  const inject = new CheckInjectors(configOf(plan), ['slow-runtime', 'slow-cni'], KEY);
  const watch = new ProofPodWatch();
  const proof: Proof = {
    client: watch.observe(client),
    plan,
    make: createConfigFactory(runId, PROOF_CHECK_ID, plan),
    result,
  };
  claimRunLogs(runId);
  try {
    // Claimed before the first pod, as a check claims before its first call: the logs are read from here.
    const runtime = plan.runtime ? inject.slowRuntime() : undefined;
    const cni = plan.cni ? inject.slowCni() : undefined;
    await proveWithPods(proof, runtime, cni);
  } catch (e) {
    // Another client's doing proves nothing about the injector either way.
    const disturbed =
      (await watch.disturbance(client, runId, e)) ??
      (plan.besideKubelet
        ? `the proof pod failed beside a kubelet, which stops pods it does not know and may have stopped this one: ${errorMessage(e)}`
        : undefined);
    const failed: ProofOutcome = disturbed
      ? { verdict: 'unproven', detail: disturbed }
      : { verdict: 'broken', detail: `the proof pod failed: ${errorMessage(e)}` };
    if (plan.runtime && !result.runtime) result.runtime = failed;
    if (plan.cni && !result.cni) result.cni = failed;
    await inject.reset().catch(() => undefined);
    const plain = await plainPodError(proof);
    if (plain) result.plainPodFailure = plain;
  } finally {
    const problem = (what: string) => (e: unknown) =>
      result.cleanupProblems.push(`${what}: ${errorMessage(e)}`);
    await inject.reset().catch(problem('resetting the claims'));
    await inject.release().catch(problem('releasing the claims'));
    // A runtime that stopped answering leaves the pods to `cri-conform cleanup`; the finding says so.
    const sweep = await removeLabelledUntilGone(client, { runId }, SWEEP_MS).catch((e: unknown) => ({
      problems: [errorMessage(e)],
    }));
    result.cleanupProblems.push(...sweep.problems);
    const logs = removeRunLogs(runId);
    if (logs) result.cleanupProblems.push(logs);
  }
  return result;
}

function configOf(plan: ProofPlan): InjectorConfig {
  return {
    ...(plan.runtime ? { slowRuntimeHandler: plan.runtime.handler, slowRuntimeDir: plan.runtime.dir } : {}),
    ...(plan.cni ? { slowCniDir: plan.cni.dir } : {}),
  };
}

async function proveWithPods(proof: Proof, runtime?: SlowRuntime, cni?: SlowCni): Promise<void> {
  const { client, plan, make, result } = proof;
  const pod = make.pod('injectors');
  await cni?.setDelay(PROOF_DELAY_MS);
  const run = await timed(() =>
    client.call('RunPodSandbox', { config: pod, runtimeHandler: runtime?.handler ?? plan.defaultHandler }),
  );
  const podId = run.value.podSandboxId;
  await cni?.setDelay(0);
  const cniLacks = plan.cni ? await addLacks(plan.cni.dir, podId, run.ms) : undefined;
  if (runtime && plan.runtime)
    result.runtime = await proveRuntime(proof, runtime, plan.runtime.dir, podId, pod);
  if (!cni || !plan.cni || !cniLacks) return;
  if (cniLacks.nothing) {
    result.cni = broken(
      `RunPodSandbox took ${Math.round(run.ms)} ms with ${CLAIM}delay-ms ${PROOF_DELAY_MS} and added.log has no line for sandbox ${podId.slice(0, 12)}: the CNI wrapper did not sleep on ADD nor log it; is it the plugin the runtime's CNI config runs, with this control dir?`,
    );
    return;
  }
  await client.call('StopPodSandbox', { podSandboxId: podId });
  const lacks = [
    ...cniLacks.lacks,
    ...(await delLacks(plan.cni.dir, podId)),
    ...(await failLacks(proof, cni)),
  ];
  result.cni =
    lacks.length > 0
      ? broken(`the slow CNI wrapper lacks ${lacks.join('; ')}`)
      : {
          verdict: 'works',
          detail: `RunPodSandbox took ${Math.round(run.ms)} ms with ${CLAIM}delay-ms ${PROOF_DELAY_MS}; it logged the ADD and the DEL under the key and failed an ADD while ${CLAIM}fail existed`,
        };
}

/** What the CNI wrapper's ADD of the first pod shows it lacks; `nothing` when it showed no sign of life. */
async function addLacks(
  dir: string,
  podId: string,
  ms: number,
): Promise<{ lacks: string[]; nothing: boolean }> {
  const logged = await howLogged(dir, 'added.log', podId, KEY);
  const slept = ms >= PROOF_DELAY_MS;
  const lacks = [
    ...(slept
      ? []
      : [`claims: RunPodSandbox took ${Math.round(ms)} ms with ${CLAIM}delay-ms ${PROOF_DELAY_MS}`]),
    ...(logged === 'absent'
      ? [`added.log: no "<sandbox id> <netns> <key>" line for ${podId.slice(0, 12)}`]
      : []),
    ...(logged === 'unkeyed'
      ? [`the key column in added.log (its line for ${podId.slice(0, 12)} has no ${KEY})`]
      : []),
  ];
  return { lacks, nothing: !slept && logged === 'absent' };
}

async function delLacks(dir: string, podId: string): Promise<string[]> {
  const logged = await howLogged(dir, 'del.log', podId, KEY);
  if (logged === 'absent')
    return [`del.log: no "<sandbox id> <key>" line for ${podId.slice(0, 12)} after StopPodSandbox`];
  if (logged === 'unkeyed')
    return [`the key column in del.log (its line for ${podId.slice(0, 12)} has no ${KEY})`];
  return [];
}

/** With the claim's `fail` file, a second pod's ADD must be reached (logged) and its RunPodSandbox fail. */
async function failLacks({ client, plan, make }: Proof, cni: SlowCni): Promise<string[]> {
  const addsBefore = (await cni.added()).size;
  await cni.setFail(true);
  const outcome = await client
    .call('RunPodSandbox', { config: make.pod('injectors-fail'), runtimeHandler: plan.defaultHandler })
    .then(
      () => 'succeeded',
      () => 'failed',
    );
  await cni.setFail(false);
  if (outcome === 'failed' && (await cni.added()).size > addsBefore) return [];
  return outcome === 'succeeded'
    ? [`fail: RunPodSandbox succeeded while ${CLAIM}fail existed`]
    : [
        `fail: RunPodSandbox failed while ${CLAIM}fail existed, but added.log has no ADD of that pod under the key`,
      ];
}

async function proveRuntime(
  { client, plan, make }: Proof,
  slow: SlowRuntime,
  dir: string,
  podId: string,
  pod: PodSandboxConfig,
): Promise<ProofOutcome> {
  const logged = await howLogged(dir, 'created.log', podId, KEY);
  if (logged === 'absent') {
    return broken(
      `${dir}/created.log did not record the create of sandbox ${podId.slice(0, 12)}: is "${slow.handler}" the wrapper with this control dir?`,
    );
  }
  const lacks =
    logged === 'unkeyed'
      ? [
          `the key column in created.log ("<time> <id> <key>"; its line for ${podId.slice(0, 12)} has no ${KEY})`,
        ]
      : [];
  if (!plan.canRunContainer) {
    return lacks.length > 0
      ? broken(`the slow runtime handler lacks ${lacks.join('; ')}`)
      : {
          verdict: 'unproven',
          detail: `it logged the sandbox's create under the key; its delay is not proven because the test image ${plan.testImage} is missing`,
        };
  }
  await slow.setDelay(PROOF_DELAY_MS);
  let atCreate: Awaited<ReturnType<typeof howLogged>> = 'absent';
  const create = await timed(async () => {
    const request = {
      podSandboxId: podId,
      config: withPodLabels(make.container('probe'), pod),
      sandboxConfig: pod,
    };
    makeContainerLogDir('CreateContainer', request);
    const { containerId } = await client.call('CreateContainer', request);
    // The wrapper logs before it sleeps, so a runtime that creates inside CreateContainer has logged it now.
    atCreate = await howLogged(dir, 'created.log', containerId, KEY);
    await client.call('StartContainer', { containerId });
    return containerId;
  });
  await slow.setDelay(0);
  const took = `CreateContainer + StartContainer took ${Math.round(create.ms)} ms with ${CLAIM}delay-ms ${PROOF_DELAY_MS}`;
  const ctr = await howLogged(dir, 'created.log', create.value, KEY);
  if (ctr === 'absent') lacks.push(`created.log: no line for container ${create.value.slice(0, 12)}`);
  if (ctr === 'unkeyed' && logged === 'keyed')
    lacks.push(
      `the key column in created.log for a container (its line for ${create.value.slice(0, 12)} has no ${KEY})`,
    );
  if (create.ms < PROOF_DELAY_MS) lacks.unshift(`claims: ${took}`);
  if (lacks.length > 0) return broken(`the slow runtime handler lacks ${lacks.join('; ')}`);
  const createsAtStart = atCreate === 'absent';
  return {
    verdict: 'works',
    detail: `it logged the creates of the sandbox and the container under the key; ${took}${
      createsAtStart ? " (the runtime ran the container's OCI create at StartContainer)" : ''
    }`,
    createsAtStart,
  };
}

/** Whether a pod with the default handler and no delays starts: undefined when it does, else its error. */
async function plainPodError({ client, plan, make }: Proof): Promise<string | undefined> {
  const handler = plan.defaultHandler;
  try {
    await client.call('RunPodSandbox', { config: make.pod('plain'), runtimeHandler: handler });
    return undefined;
  } catch (e) {
    return `RunPodSandbox with ${handler ? `handler "${handler}"` : 'the default handler'} failed: ${errorMessage(e)}`;
  }
}

function broken(detail: string): ProofOutcome {
  return { verdict: 'broken', detail: `${detail} (${WHERE})` };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}
