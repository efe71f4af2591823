/**
 * The shared scenario of the teardown suite: one pod with a running container, a plugin at index 10 that
 * misbehaves (error, hang or crash) on chosen teardown events of that pod only, optionally a well-behaved
 * witness plugin at index 20, and the teardown calls made one by one. It records each call's reply, how
 * often the fault acted, and what the pod and container look like afterwards; the checks assert on that.
 * After a hang or a crash the runtime has dropped plugin 10, and the same plugin registers again for the
 * next step; where the runtime refuses that, a fresh plugin takes its place (rejoin.ts, TEAR-07's contract).
 */

import type {
  CallResult,
  CheckContext,
  FaultAction,
  FaultHandle,
  NriEventName,
  PodSandboxConfig,
  TestPlugin,
} from '../../src/harness/face.js';
import { CONTAINER_EVENTS, describeEvents, POD_EVENTS, receivedBy } from '../common/events.js';
import { describeReply } from '../common/replies.js';
import { boundedCallDeadlineMs, teardownBoundMs } from '../common/timing.js';
import { type NewPodProbe, probeWithNewPod, type Rejoin, rejoinOrReplace } from './rejoin.js';

/** The teardown calls in the order the kubelet reaches them for a pod with one container. */
export const TEARDOWN_EVENTS = [
  'StopContainer',
  'RemoveContainer',
  'StopPodSandbox',
  'RemovePodSandbox',
] as const;
export type TeardownEvent = (typeof TEARDOWN_EVENTS)[number];

export interface FaultyTeardownSpec {
  /** Part of the pod name, and how failure messages name the scenario. */
  name: string;
  /** What plugin 10 does on each event in faultOn, for this pod only. */
  action: FaultAction;
  faultOn: readonly TeardownEvent[];
  /** The CRI calls made, in order. */
  steps: readonly TeardownEvent[];
  /** Also register plugin 20, which only records. */
  witness?: boolean;
  /** Repeat a call once when it fails (what the kubelet would do next). */
  retryOnError?: boolean;
}

export interface LivePod {
  podId: string;
  containerId: string;
}

export interface StepOutcome {
  event: TeardownEvent;
  reply: CallResult<unknown>;
  retry?: CallResult<unknown>;
  /** How often plugin 10's fault acted on this step's event (0: the runtime never delivered it). */
  faultHits: number;
  /** From the lists right after the step: a CRI state name, or 'gone'. */
  podState: string;
  containerState: string;
  /** After plugin 10's hang or crash on this step: how the same plugin came back. */
  rejoin?: Rejoin;
}

export interface FaultyTeardown<T> extends LivePod {
  podConfig: PodSandboxConfig;
  faulty: TestPlugin;
  witness?: TestPlugin;
  steps: StepOutcome[];
  /** What onLive returned (taken while the pod ran, before any teardown). */
  live: T | undefined;
  /** Set when plugin 10 ended the steps as the same plugin registered again. */
  newPod?: NewPodProbe;
}

const TEARDOWN_SUBSCRIPTION: readonly NriEventName[] = [...POD_EVENTS, ...CONTAINER_EVENTS];

export async function tearDownWithFaultyPlugin<T = undefined>(
  t: CheckContext,
  spec: FaultyTeardownSpec,
  onLive?: (pod: LivePod) => Promise<T>,
): Promise<FaultyTeardown<T>> {
  let faulty = await freshPlugin(t, '10');
  const witness = spec.witness ? await freshPlugin(t, '20') : undefined;
  const { podId, containerId, podConfig } = await t.cri.runPodWithContainer(spec.name);
  const live = onLive ? await onLive({ podId, containerId }) : undefined;
  const steps: StepOutcome[] = [];
  /** Whether plugin 10 is now the same plugin, registered again after a drop (a fresh one is not). */
  let cameBack = false;
  for (const event of spec.steps) {
    const target = event.endsWith('Container') ? { containerId } : { podId };
    let fault: FaultHandle | undefined;
    if (spec.faultOn.includes(event)) {
      t.step(`plugin 10 will ${spec.action.kind} on ${event}`);
      fault = faulty.fault({ match: { ...target, event }, action: spec.action });
    }
    const reply = await teardownCall(t, event, { podId, containerId });
    const retry =
      !reply.ok && spec.retryOnError ? await teardownCall(t, event, { podId, containerId }) : undefined;
    const faultHits = fault?.hits ?? 0;
    fault?.remove();
    let rejoin: Rejoin | undefined;
    if (fault && (spec.action.kind === 'hang' || spec.action.kind === 'crash')) {
      const replace = () => freshPlugin(t, '10');
      const what = `its ${spec.action.kind} on ${event}`;
      // A fault that never acted dropped nothing: a plugin this process closed would test no re-registration.
      if (faultHits === 0) faulty = await replace();
      else ({ plugin: faulty, rejoin } = await rejoinOrReplace(t, faulty, what, replace));
      cameBack = rejoin?.refused === '';
    }
    steps.push({
      event,
      reply,
      ...(retry ? { retry } : {}),
      faultHits,
      ...(await statesOf(t, { podId, containerId })),
      ...(rejoin ? { rejoin } : {}),
    });
  }
  const newPod = cameBack ? await probeWithNewPod(t, faulty, `${spec.name}-after`) : undefined;
  return {
    podId,
    containerId,
    podConfig,
    faulty,
    ...(witness ? { witness } : {}),
    steps,
    live,
    ...(newPod ? { newPod } : {}),
  };
}

let pluginsMade = 0;

/** A plugin under a name no earlier plugin of this process used, so the runtime sees a new plugin. */
function freshPlugin(t: CheckContext, index: string): Promise<TestPlugin> {
  pluginsMade += 1;
  const name = `cri-conform-${t.id.toLowerCase()}-${pluginsMade}`;
  return t.nri.plugin({ index, events: TEARDOWN_SUBSCRIPTION, name });
}

/** One teardown call with a deadline just past TEAR-04's bound, so a blocked call fails fast. */
export function teardownCall(
  t: CheckContext,
  event: TeardownEvent,
  pod: LivePod,
): Promise<CallResult<unknown>> {
  const opts = { deadlineMs: boundedCallDeadlineMs(t) };
  switch (event) {
    case 'StopContainer':
      return t.cri.tryCall('StopContainer', { containerId: pod.containerId, timeout: '1' }, opts);
    case 'RemoveContainer':
      return t.cri.tryCall('RemoveContainer', { containerId: pod.containerId }, opts);
    case 'StopPodSandbox':
      return t.cri.tryCall('StopPodSandbox', { podSandboxId: pod.podId }, opts);
    case 'RemovePodSandbox':
      return t.cri.tryCall('RemovePodSandbox', { podSandboxId: pod.podId }, opts);
  }
}

async function statesOf(
  t: CheckContext,
  pod: LivePod,
): Promise<{ podState: string; containerState: string }> {
  const podState = (await t.cri.listPods()).find((p) => p.id === pod.podId)?.state ?? 'gone';
  const containerState =
    (await t.cri.listContainers({ podId: pod.podId })).find((c) => c.id === pod.containerId)?.state ?? 'gone';
  return { podState, containerState };
}

/** The reply, plus the retry's when there was one: "UNKNOWN (2) in 15 ms: ...; retry OK in 9 ms". */
export function describeStep(s: StepOutcome): string {
  return `${s.event} ${describeReply(s.reply)}${s.retry ? `; retry ${describeReply(s.retry)}` : ''}`;
}

/**
 * Asserts what TEAR-01..03 allow a call whose hook a plugin failed: OK, or an error that an immediate
 * identical retry clears (the kubelet retries; an error that persists keeps the pod Terminating).
 */
export function expectRetryClears(t: CheckContext, s: StepOutcome): void {
  t.expect(
    s.reply.ok || s.retry?.ok === true,
    `with plugin 10 failing its ${s.event} hook, ${describeStep(s)}: the error persists on an immediate identical retry`,
  );
}

/** Steps whose event plugin 10 was set to fail but never received: the scenario could not test them. */
export function unreachedFaults(spec: FaultyTeardownSpec, steps: readonly StepOutcome[]): string[] {
  return steps.filter((s) => spec.faultOn.includes(s.event) && s.faultHits === 0).map((s) => s.event);
}

/**
 * What the witness (plugin 20) missed of the events plugin 10 misbehaved on, as a failure message, or ''.
 * "plugin 20 got [...]; missing StopPodSandbox (plugin 10 answered it with hang)"
 */
export async function witnessGap<T>(
  t: CheckContext,
  spec: FaultyTeardownSpec,
  o: FaultyTeardown<T>,
): Promise<string> {
  const { witness } = o;
  if (!witness) return `scenario ${spec.name} has no witness plugin`;
  const missing: string[] = [];
  // One window for all of them: the calls have returned, so every event is owed already, and whatever
  // plugin 10 did (an error, a hang until the plugin timeout, a crash) happened inside its call. No plugin
  // timeout is left to allow for, only scheduling noise.
  const endAt = Date.now() + t.settings.marginMs;
  for (const s of o.steps.filter((step) => spec.faultOn.includes(step.event))) {
    const target = s.event.endsWith('Container') ? { containerId: o.containerId } : { podId: o.podId };
    const got = await receivedBy(witness, target, [s.event], Math.max(0, endAt - Date.now()));
    if (!got.some((e) => e.event === s.event)) missing.push(s.event);
  }
  if (missing.length === 0) return '';
  return `plugin 20 got ${describeEvents(witness.events({ podId: o.podId }))}; missing ${missing.join(', ')} (plugin 10 answered each with ${spec.action.kind})`;
}

/** Steps that took longer than TEAR-04's bound, as a failure message, or ''. */
export function overBound(t: CheckContext, spec: FaultyTeardownSpec, steps: readonly StepOutcome[]): string {
  const boundMs = teardownBoundMs(t);
  const slow = steps.filter((s) => s.reply.latencyMs > boundMs);
  if (slow.length === 0) return '';
  return `with plugin 10 answering with ${spec.action.kind}, ${slow.map(describeStep).join('; ')}: over the bound of ${boundMs} ms (request timeout ${t.settings.nriRequestTimeoutMs} ms + margin ${t.settings.marginMs} ms)`;
}

/** The outcome of the step that made `event`'s call; fails the check when the scenario made none. */
export function stepOf(t: CheckContext, steps: readonly StepOutcome[], event: TeardownEvent): StepOutcome {
  const step = steps.find((s) => s.event === event);
  t.expect(step !== undefined, `the scenario made no ${event} call`);
  return step;
}

/**
 * Ends the check in ERROR when plugin 10 never got an event it was set to misbehave on: the fault never
 * acted, so that part of the scenario decided nothing.
 */
export function expectFaultsReached(
  t: CheckContext,
  spec: FaultyTeardownSpec,
  steps: readonly StepOutcome[],
): void {
  const unreached = unreachedFaults(spec, steps);
  t.require(
    unreached.length === 0,
    `plugin 10 never got ${unreached.join(', ')}, so its ${spec.action.kind} there was never exercised`,
  );
}
