/**
 * The shared scenario of the teardown suite: one pod with a running container, a plugin at index 10 that
 * misbehaves (error, hang or crash) on chosen teardown events of that pod only (from its first such step
 * on, every time the runtime sends one of them), optionally a well-behaved witness plugin at index 20, and
 * the teardown calls made one by one. It records each call's reply, how often the fault acted, and what
 * the pod and container look like afterwards (by their status calls); the checks assert on that.
 * After a hang or a crash the runtime has dropped plugin 10, and the same plugin registers again for the
 * next step; where the runtime refuses that, a fresh plugin takes its place (rejoin.ts, TEAR-07's contract).
 */

import type {
  CallResult,
  CheckContext,
  FaultAction,
  NriEventName,
  PodSandboxConfig,
  TestPlugin,
} from '../../src/harness/face.js';
import { CONTAINER_EVENTS, describeEvents, POD_EVENTS, receivedBy } from '../common/events.js';
import { describeReply } from '../common/replies.js';
import { boundedCallDeadlineMs, describeTeardownBound, teardownBoundMs } from '../common/timing.js';
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
  /**
   * Repeat a call once when it fails (what the kubelet would do next), with plugin 10 misbehaving as
   * before: a retry that succeeds only because the runtime dropped the plugin would prove nothing.
   */
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
  /** From the status calls right after the step: a CRI state name, or 'GONE' (NOT_FOUND). */
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
  /**
   * One call with plugin 10's fault armed on its event, and still on the faulty events of earlier steps:
   * a broken plugin stays broken, so a runtime that sends an earlier hook again (its work was skipped)
   * meets the fault again. After a hang or crash, plugin 10 comes back.
   */
  const attempt = async (event: TeardownEvent, what: string) => {
    const armed = spec.steps
      .slice(0, spec.steps.indexOf(event) + 1)
      .filter((e) => spec.faultOn.includes(e))
      .map((e) => {
        const target = e.endsWith('Container') ? { containerId } : { podId };
        return { event: e, fault: faulty.fault({ match: { ...target, event: e }, action: spec.action }) };
      });
    const reply = await teardownCall(t, event, { podId, containerId });
    const hits = armed.find((a) => a.event === event)?.fault.hits ?? 0;
    const allHits = armed.reduce((n, a) => n + a.fault.hits, 0);
    for (const a of armed) a.fault.remove();
    let rejoin: Rejoin | undefined;
    const ownFault = spec.faultOn.includes(event);
    if ((spec.action.kind === 'hang' || spec.action.kind === 'crash') && (ownFault || allHits > 0)) {
      const replace = () => freshPlugin(t, '10');
      // A fault that never acted dropped nothing: a plugin this process closed would test no re-registration.
      if (allHits === 0) faulty = await replace();
      else ({ plugin: faulty, rejoin } = await rejoinOrReplace(t, faulty, what, replace));
      cameBack = rejoin?.refused === '';
    }
    return { reply, hits, rejoin };
  };
  for (const event of spec.steps) {
    if (spec.faultOn.includes(event)) t.step(`plugin 10 will ${spec.action.kind} on ${event}`);
    const first = await attempt(event, `its ${spec.action.kind} on ${event}`);
    const retry =
      !first.reply.ok && spec.retryOnError
        ? (await attempt(event, `its ${spec.action.kind} on the retry of ${event}`)).reply
        : undefined;
    steps.push({
      event,
      reply: first.reply,
      ...(retry ? { retry } : {}),
      faultHits: first.hits,
      ...(await statesOf(t, { podId, containerId })),
      ...(first.rejoin ? { rejoin: first.rejoin } : {}),
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
  // Only NOT_FOUND says an object is gone: a runtime may stop listing an object it still keeps.
  const podState = await t.cri.podStateOrGone(pod.podId);
  const containerState = await t.cri.containerStateOrGone(pod.containerId);
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
export function expectRetryClears(t: CheckContext, s: StepOutcome, clause: string): void {
  t.expect(
    s.reply.ok || s.retry?.ok === true,
    `with plugin 10 failing its ${s.event} hook, ${describeStep(s)}: the error persists on an immediate identical retry`,
    clause,
  );
}

/** The state each teardown call leaves its object in, by the object it is for. */
const END_STATE: Record<TeardownEvent, { of: 'pod' | 'container'; state: string }> = {
  StopContainer: { of: 'container', state: 'CONTAINER_EXITED' },
  RemoveContainer: { of: 'container', state: 'GONE' },
  StopPodSandbox: { of: 'pod', state: 'SANDBOX_NOTREADY' },
  RemovePodSandbox: { of: 'pod', state: 'GONE' },
};

/**
 * What TEAR-04 and TEAR-06 ask of every call whose hook plugin 10 hung or crashed in: OK, or an error
 * that the identical retry clears, and its object in the state the call is for. A runtime that takes the
 * plugin's failure as its own (errors at once and skips the stop) keeps the pod Terminating. Returns
 * one failure message per step that falls short.
 */
export function unfinishedSteps(spec: FaultyTeardownSpec, steps: readonly StepOutcome[]): string[] {
  return steps
    .filter((s) => spec.faultOn.includes(s.event))
    .flatMap((s) => {
      const end = END_STATE[s.event];
      const state = end.of === 'pod' ? s.podState : s.containerState;
      const problems = [
        s.reply.ok || s.retry?.ok === true ? '' : 'the error persists on an identical retry',
        state === end.state ? '' : `the ${end.of} is ${state}, not ${end.state}`,
      ].filter(Boolean);
      if (problems.length === 0) return [];
      return [
        `with plugin 10 answering with ${spec.action.kind}, ${describeStep(s)}: ${problems.join('; ')}`,
      ];
    });
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

/**
 * Steps with a reply, the first or its retry's, that took longer than TEAR-04's bound, as a failure
 * message, or ''. A retry is the kubelet's next try at the same teardown: it must not hang either.
 */
export function overBound(t: CheckContext, spec: FaultyTeardownSpec, steps: readonly StepOutcome[]): string {
  const boundMs = teardownBoundMs(t);
  const slow = steps.filter((s) => s.reply.latencyMs > boundMs || (s.retry?.latencyMs ?? 0) > boundMs);
  if (slow.length === 0) return '';
  return `with plugin 10 answering with ${spec.action.kind}, ${slow.map(describeStep).join('; ')}: over the bound of ${boundMs} ms (${describeTeardownBound(t)})`;
}

/** The outcome of the step that made `event`'s call; ends the check in ERROR when the scenario made none. */
export function stepOf(t: CheckContext, steps: readonly StepOutcome[], event: TeardownEvent): StepOutcome {
  const step = steps.find((s) => s.event === event);
  t.require(step !== undefined, `the scenario made no ${event} call`);
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
  // The replies say whether the runtime refused the call before its hook, or answered without sending it.
  const replies = steps.filter((s) => unreached.includes(s.event)).map(describeStep);
  t.require(
    unreached.length === 0,
    `plugin 10 never got ${unreached.join(', ')}, so its ${spec.action.kind} there was never exercised (${replies.join('; ')})`,
  );
}
