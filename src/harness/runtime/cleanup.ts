/**
 * Removes cri-conform's objects: containers first, then sandboxes. Acts only on objects with all of the
 * run's marks (labels.ts isOurPod: the run label, the pod namespace, the name prefix; a container in such a
 * pod) and, when given, the exact run and check, so a foreign pod is never touched: not when someone
 * labelled it cri-conform.io/run, nor when the runtime ignores a label selector.
 */
import type { CriClient } from '../../cri/client.js';
import { CriCallError } from '../../cri/errors.js';
import { errorMessage } from '../core/errors.js';
import { CHECK_LABEL, isOurContainer, isOurPod, RUN_LABEL, TRIAL_LABEL } from '../core/labels.js';

export interface CleanupScope {
  /** Only this run; undefined = every cri-conform run (the `cleanup` command). */
  runId?: string;
  /** Only this check of the run. */
  checkId?: string;
  /** Only this trial of the check (after a trial; the trials beside it keep theirs). */
  trial?: number;
  /**
   * Whether a run's process still runs (`cleanup`, which removes what ended runs left): such a run's
   * objects are its own to remove, and taking them mid-check would fail its checks for the tool's doing.
   */
  stillRunning?: (runId: string) => boolean;
  /**
   * How many objects to remove at once (1 when absent). A check's cleanup between trials removes one at a
   * time, beside trials it must not slow; a sweep after the checks has nothing left to disturb, and a
   * runtime whose known bugs left dozens of pods would otherwise remove them one after another.
   */
  atOnce?: number;
}

export interface CleanupReport {
  containers: string[];
  pods: string[];
  /** The check label of each object removed, so a sweep can say whose objects were left. */
  owners: string[];
  /** The run label of each object removed: `cleanup` removes those runs' pod logs too. */
  runs: string[];
  problems: string[];
  /** Objects that carry the run label but not every other mark: someone else's, left alone. */
  spared: string[];
  /** Runs whose process still runs, whose objects were left alone (scope.stillRunning). */
  running: string[];
}

function emptyReport(): CleanupReport {
  return { containers: [], pods: [], owners: [], runs: [], problems: [], spared: [], running: [] };
}

const STOP_DEADLINE_MS = 30_000;
/** Removals at once in a sweep that nothing runs beside (CleanupScope.atOnce): as many as --parallel's checks. */
export const SWEEP_AT_ONCE = 4;
/** Between cleanup rounds that left something: short at first, for objects that are on their way out. */
const FIRST_PAUSE_MS = 50;
const MAX_PAUSE_MS = 1_000;
/** Identical problems for this long end the cleanup early, reported as they are. */
const STUCK_MS = 10_000;

export async function removeLabelled(client: CriClient, scope: CleanupScope): Promise<CleanupReport> {
  const report = emptyReport();
  const selector = selectorOf(scope);
  const inScope = (labels: Record<string, string>) =>
    labels[RUN_LABEL] !== undefined && Object.entries(selector).every(([k, v]) => labels[k] === v);

  // Pods are listed first: a container is ours only in a pod that is.
  const { items } = await client.call('ListPodSandbox', { filter: { labelSelector: selector } });
  const labelled = items.filter((p) => p.labels[RUN_LABEL] !== undefined);
  const ours = labelled.filter((p) => isOurPod(p, scope.runId));
  for (const p of labelled.filter((p) => !ours.includes(p)))
    report.spared.push(`pod ${p.metadata.namespace}/${p.metadata.name} (${p.id})`);
  // Asked once a run: each asking reads every run folder.
  const runsOfOurs = new Set(ours.map((p) => p.labels[RUN_LABEL] ?? ''));
  const running = new Set([...runsOfOurs].filter((run) => scope.stillRunning?.(run) === true));
  report.running = [...running];
  const pods = ours.filter((p) => !running.has(p.labels[RUN_LABEL] ?? ''));
  const ourPodIds = new Set(pods.map((p) => p.id));
  const { containers } = await client.call('ListContainers', { filter: { labelSelector: selector } });
  const atOnce = scope.atOnce ?? 1;
  const ourContainers = containers.filter(
    (c) => isOurContainer(c, ourPodIds, scope.runId) && inScope(c.labels),
  );
  await eachAtMost(ourContainers, atOnce, (c) =>
    attempt(report, `container ${c.id}`, async () => {
      await ignoreNotFound(
        client.call('StopContainer', { containerId: c.id, timeout: '0' }, { deadlineMs: STOP_DEADLINE_MS }),
      );
      await ignoreNotFound(
        client.call('RemoveContainer', { containerId: c.id }, { deadlineMs: STOP_DEADLINE_MS }),
      );
      report.containers.push(c.id);
      report.owners.push(c.labels[CHECK_LABEL] ?? 'the run');
      report.runs.push(c.labels[RUN_LABEL] ?? '');
    }),
  );
  await eachAtMost(
    pods.filter((p) => inScope(p.labels)),
    atOnce,
    (p) =>
      attempt(report, `pod ${p.id}`, async () => {
        await ignoreNotFound(
          client.call('StopPodSandbox', { podSandboxId: p.id }, { deadlineMs: STOP_DEADLINE_MS }),
        );
        await ignoreNotFound(
          client.call('RemovePodSandbox', { podSandboxId: p.id }, { deadlineMs: STOP_DEADLINE_MS }),
        );
        report.pods.push(p.id);
        report.owners.push(p.labels[CHECK_LABEL] ?? 'the run');
        report.runs.push(p.labels[RUN_LABEL] ?? '');
      }),
  );
  return report;
}

/** Runs `each` on every item, at most `atOnce` of them at a time. */
async function eachAtMost<T>(items: readonly T[], atOnce: number, each: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    for (let item = items[next++]; item !== undefined; item = items[next++]) await each(item);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(atOnce, items.length)) }, worker));
}

/**
 * Runs cleanup rounds until nothing labelled is left, the deadline passes (a busy runtime may need two) or
 * `signal` is aborted: then it ends once the round under way has, never in the middle of one removal.
 */
export async function removeLabelledUntilGone(
  client: CriClient,
  scope: CleanupScope,
  withinMs: number,
  stuckMs = STUCK_MS,
  signal?: AbortSignal,
): Promise<CleanupReport> {
  const total = emptyReport();
  const endAt = Date.now() + withinMs;
  let pauseMs = FIRST_PAUSE_MS;
  let same = { problems: '', since: Date.now() };
  for (;;) {
    const round = await removeLabelled(client, scope);
    total.containers.push(...round.containers);
    total.pods.push(...round.pods);
    total.owners.push(...round.owners);
    total.runs.push(...round.runs);
    total.spared = round.spared;
    total.running = round.running;
    // Compared without latencies ("after 2/30000 ms"), which differ every round.
    const problems = round.problems.join('\n').replace(/\d+(\/\d+)? ms\b/g, 'ms');
    if (problems !== same.problems) same = { problems, since: Date.now() };
    // The same refusal again and again is the runtime's answer, not a removal still under way.
    const stuck = Date.now() - same.since >= stuckMs;
    // Aborted: no further round; the one that ran has finished every removal it began.
    if (round.problems.length === 0 || stuck || Date.now() + pauseMs > endAt || signal?.aborted) {
      total.problems.push(...round.problems);
      return total;
    }
    await pauseUnlessAborted(pauseMs, signal);
    pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
  }
}

function selectorOf(scope: CleanupScope): Record<string, string> {
  const s: Record<string, string> = {};
  if (scope.runId) s[RUN_LABEL] = scope.runId;
  if (scope.runId && scope.checkId) s[CHECK_LABEL] = scope.checkId;
  if (scope.runId && scope.checkId && scope.trial !== undefined) s[TRIAL_LABEL] = String(scope.trial);
  return s;
}

async function attempt(report: CleanupReport, what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    report.problems.push(`${what}: ${errorMessage(e)}`);
  }
}

async function ignoreNotFound(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (e) {
    if (e instanceof CriCallError && e.statusName === 'NOT_FOUND') return;
    throw e;
  }
}

/** Waits `ms`, or less once `signal` is aborted. */
function pauseUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
