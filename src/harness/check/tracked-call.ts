/**
 * One call of a check on its way and back: sent once the test's hook and the look before an ending call are
 * done, marked as the check's own as it goes out, and followed to its outcome (the check's objects learn of
 * it, an own StopContainer or StopPodSandbox is judged beside a kubelet, its required wait is counted).
 * CheckCri (tracked-cri.ts) makes every call through these two.
 */
import type { CriClient } from '../../cri/client.js';
import { CriCallError } from '../../cri/errors.js';
import type { CriMethod, CriRequest, CriResponse } from '../../cri/types.js';
import { type CheckObjects, endsAnObject } from '../neighbours/disturbance.js';
import type { CallOpts } from './context.js';
import type { AnsweredCall, OwnStop } from './judge-own-stop.js';
import { requiredWaitOf } from './required-wait.js';
import type { Timeline } from './timeline.js';

/** CallOpts, plus where the call's required wait goes (retries count their attempts' waits themselves). */
export type CountedCallOpts = CallOpts & { countWait?: (ms: number) => void };

/** A call as the check sends it: kubelet-shaped, with its deadline and the trial it is made in. */
export interface Outgoing<M extends CriMethod> {
  method: M;
  shaped: CriRequest<M>;
  opts: CountedCallOpts;
  deadlineMs: number;
  trial: number | undefined;
}

/** A call on its way: its reply, and when it really went out (after the hook and the look). */
export interface Sending<M extends CriMethod> {
  reply: Promise<CriResponse<M>>;
  sentAt: { startedAt: number; sentAtMs: number };
}

/** What sending and following a call needs of the check (TrackedCriDeps holds all of it). */
export interface CallDeps {
  timeline: Timeline;
  signal: AbortSignal;
  beforeCall?: (method: CriMethod, request: unknown) => Promise<void>;
  objects?: CheckObjects;
  lookBeforeEnding?: () => Promise<void>;
}

/** Besides the reply: forget the call, and judge an own stop (judge-own-stop.ts). */
export interface Aftercare {
  forget: () => void;
  judgeOwnStop: (objects: CheckObjects, stop: OwnStop, answered: AnsweredCall) => Promise<void>;
}

/**
 * Sends the call once the test's hook and the look before an ending call are done, and marks it as the
 * check's own as it goes out. `sentAt` is when it really went out, after those.
 */
export function sendCall<M extends CriMethod>(
  client: CriClient,
  deps: CallDeps,
  { method, shaped, opts, deadlineMs }: Outgoing<M>,
): Sending<M> {
  const checkSignal = deps.signal;
  const signal = opts.signal ? AbortSignal.any([opts.signal, checkSignal]) : checkSignal;
  const late = opts.cancelLateByMs === undefined ? {} : { cancelLateByMs: opts.cancelLateByMs };
  const send = () => client.call(method, shaped, { deadlineMs, signal, ...late });
  const before = deps.beforeCall;
  const sentAt = { startedAt: performance.now(), sentAtMs: Date.now() };
  const objects = deps.objects;
  const go = () => {
    sentAt.startedAt = performance.now();
    sentAt.sentAtMs = Date.now();
    objects?.sending(method, shaped);
    return send();
  };
  const look = deps.lookBeforeEnding;
  const looks = look !== undefined && endsAnObject(method);
  // A test's hook comes first (what it does happens just before the call), then the look, before the call
  // is marked as the check's own: it judges the object as it was right before the call went out.
  const reply =
    before || looks
      ? (async () => {
          await before?.(method, shaped);
          if (looks) await look();
          return go();
        })()
      : go();
  return { reply, sentAt };
}

/** The call as an own stop to judge once it answered OK, or undefined for any other call. */
function ownStop(method: CriMethod, request: unknown): OwnStop | undefined {
  if (method === 'StopContainer') return { method, request: request as CriRequest<'StopContainer'> };
  if (method === 'StopPodSandbox') return { method, request: request as CriRequest<'StopPodSandbox'> };
  return undefined;
}

/**
 * What the call's outcome tells: the check's objects learn of it (an own StopContainer or StopPodSandbox
 * answered OK is judged beside a kubelet), the call leaves the in-flight set, and its required wait is
 * counted.
 */
export function followCall<M extends CriMethod>(
  deps: CallDeps,
  outgoing: Outgoing<M>,
  { reply: p, sentAt }: Sending<M>,
  aftercare: Aftercare,
): void {
  const { method, shaped, opts, deadlineMs, trial } = outgoing;
  const objects = deps.objects;
  const look = deps.lookBeforeEnding;
  p.then(
    (reply) => {
      objects?.replied(method, shaped, reply);
      const stop = ownStop(method, shaped);
      if (stop && look && objects?.endedLive(shaped)) {
        const answered = {
          sentAtMs: sentAt.sentAtMs,
          latencyMs: performance.now() - sentAt.startedAt,
          opts,
        };
        objects.lookingAt(aftercare.judgeOwnStop(objects, stop, answered));
      }
    },
    (e: unknown) => {
      if (e instanceof CriCallError) objects?.failed(method, shaped, e.statusName);
    },
  );
  p.then(aftercare.forget, aftercare.forget);
  const count = (code: string) => {
    const ms = requiredWaitOf(opts, deadlineMs, performance.now() - sentAt.startedAt, code, deps.signal);
    if (ms > 0) (opts.countWait ?? ((w) => deps.timeline.addRequiredWait(w, trial)))(ms);
  };
  p.then(
    () => count('OK'),
    (e: unknown) => count(e instanceof CriCallError ? e.statusName : ''),
  );
}
