/**
 * Proves that the delay injectors work, not only that they are configured, with one short pod. The pod is
 * labelled like every object of a run (so `cri-conform cleanup` finds it if the process is killed) and is
 * removed again whatever happens.
 * - Slow CNI: with its delay set, RunPodSandbox takes at least that long.
 * - Slow runtime handler: the sandbox's create lands in created.log; then, with its delay set,
 *   CreateContainer + StartContainer in that pod take at least that long and the container's create is
 *   logged too (containerd runs runc create at StartContainer, other runtimes at CreateContainer).
 * Each proof is a lower bound on a latency the tool measured itself: load makes a call slower, never faster,
 * so a working injector is never reported broken.
 */
import type { CriClient } from '../cri/client.js';
import { removeLabelledUntilGone } from './cleanup.js';
import { createConfigFactory, withPodLabels } from './config-factory.js';
import { errorMessage } from './errors.js';
import { readCreated, writeDelay } from './injectors.js';
import { newRunId } from './labels.js';
import { removeRunLogs } from './pod-logs.js';

/** Well above a pod's own setup time on an idle node (70-220 ms), and short enough for doctor to stay quick. */
export const PROOF_DELAY_MS = 500;
/** The check label of the proof pod: `cri-conform.io/check=DOCTOR`, name `cc-doctor-injectors-<token>`. */
export const PROOF_CHECK_ID = 'DOCTOR';
const SWEEP_MS = 30_000;

export interface ProofPlan {
  runtime?: { handler: string; dir: string };
  cni?: { dir: string };
  /** The pod's handler when the slow runtime handler is not being proven. */
  defaultHandler: string;
  testImage: string;
  /** False when the test image is missing (doctor does not pull): the handler's delay cannot be shown. */
  canRunContainer: boolean;
}

export interface ProofOutcome {
  verdict: 'works' | 'broken' | 'unproven';
  detail: string;
}

export interface ProofResult {
  runtime?: ProofOutcome;
  cni?: ProofOutcome;
  cleanupProblems: string[];
}

export async function proveInjectors(client: CriClient, plan: ProofPlan): Promise<ProofResult> {
  const runId = newRunId();
  const result: ProofResult = { cleanupProblems: [] };
  const dirs = [plan.runtime?.dir, plan.cni?.dir].filter((d): d is string => d !== undefined);
  try {
    await proveWithPod(client, plan, runId, result);
  } catch (e) {
    const failed: ProofOutcome = { verdict: 'broken', detail: `the proof pod failed: ${errorMessage(e)}` };
    if (plan.runtime && !result.runtime) result.runtime = failed;
    if (plan.cni && !result.cni) result.cni = failed;
  } finally {
    for (const dir of dirs) {
      await writeDelay(dir, 0).catch((e: unknown) =>
        result.cleanupProblems.push(`resetting ${dir}/delay-ms: ${errorMessage(e)}`),
      );
    }
    const sweep = await removeLabelledUntilGone(client, { runId }, SWEEP_MS);
    result.cleanupProblems.push(...sweep.problems);
    const logs = removeRunLogs(runId);
    if (logs) result.cleanupProblems.push(logs);
  }
  return result;
}

async function proveWithPod(client: CriClient, plan: ProofPlan, runId: string, result: ProofResult) {
  const make = createConfigFactory(runId, PROOF_CHECK_ID, plan.testImage);
  const pod = make.pod('injectors');
  if (plan.runtime) await writeDelay(plan.runtime.dir, 0);
  if (plan.cni) await writeDelay(plan.cni.dir, PROOF_DELAY_MS);
  const loggedBefore = plan.runtime ? (await readCreated(plan.runtime.dir)).length : 0;

  const run = await timed(() =>
    client.call('RunPodSandbox', {
      config: pod,
      runtimeHandler: plan.runtime?.handler ?? plan.defaultHandler,
    }),
  );
  const podId = run.value.podSandboxId;
  if (plan.cni) {
    await writeDelay(plan.cni.dir, 0);
    result.cni = atLeast(
      run.ms,
      'RunPodSandbox',
      "the CNI wrapper did not sleep on ADD: is it the plugin the runtime's CNI config runs?",
    );
  }
  if (!plan.runtime) return;

  const { dir, handler } = plan.runtime;
  const afterPod = (await readCreated(dir)).slice(loggedBefore);
  if (!afterPod.includes(podId)) {
    result.runtime = {
      verdict: 'broken',
      detail: `${dir}/created.log did not record the create of sandbox ${podId.slice(0, 12)} (new entries: ${afterPod.length}): is "${handler}" the wrapper with this control dir?`,
    };
    return;
  }
  if (!plan.canRunContainer) {
    result.runtime = {
      verdict: 'unproven',
      detail: `it logged the sandbox's create; its delay is not proven because the test image ${plan.testImage} is missing`,
    };
    return;
  }
  await writeDelay(dir, PROOF_DELAY_MS);
  const create = await timed(async () => {
    const { containerId } = await client.call('CreateContainer', {
      podSandboxId: podId,
      config: withPodLabels(make.container('probe'), pod),
      sandboxConfig: pod,
    });
    await client.call('StartContainer', { containerId });
    return containerId;
  });
  const afterCtr = (await readCreated(dir)).slice(loggedBefore + afterPod.length);
  result.runtime = afterCtr.includes(create.value)
    ? atLeast(
        create.ms,
        'CreateContainer + StartContainer',
        'the wrapper logged the create but did not sleep',
        'it logged the creates of the sandbox and the container',
      )
    : {
        verdict: 'broken',
        detail: `created.log did not record the create of container ${create.value.slice(0, 12)}`,
      };
}

function atLeast(ms: number, what: string, whyNot: string, also?: string): ProofOutcome {
  const took = `${what} took ${Math.round(ms)} ms with delay-ms ${PROOF_DELAY_MS}`;
  return ms >= PROOF_DELAY_MS
    ? { verdict: 'works', detail: also ? `${also}; ${took}` : took }
    : { verdict: 'broken', detail: `${took}: ${whyNot}` };
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}
