/**
 * The CRI as a check sees it: every call goes to the check's timeline, every call in flight is known (so
 * cleanup can wait for a timed-out call that is still building), and list helpers only ever see the
 * check's own labelled objects.
 */
import type { CallRecord, CriClient } from '../../cri/client.js';
import { CriCallError } from '../../cri/errors.js';
import type { CriMethod, CriRequest, CriResponse, PodSandboxConfig } from '../../cri/types.js';
import { shortId } from '../core/ids.js';
import { CHECK_LABEL, RUN_LABEL, TRIAL_LABEL } from '../core/labels.js';
import type { OwnIds } from '../core/own-ids.js';
import { makeContainerLogDir, missingLogPath } from '../host/pod-logs.js';
import type { CheckObjects } from '../neighbours/disturbance.js';
import { kubeletShaped } from './config-factory.js';
import type {
  CallOpts,
  CallResult,
  ConfigFactory,
  ContainerListItem,
  HandlerOpts,
  PodSandboxListItem,
  RetryOutcome,
  RetryPolicy,
  RunPodRequest,
  TrackedCri,
} from './context.js';
import { judgeOwnStop } from './judge-own-stop.js';
import { retryLikeKubelet } from './retry.js';
import type { Timeline } from './timeline.js';
import { type CountedCallOpts, followCall, sendCall } from './tracked-call.js';

export interface TrackedCriDeps {
  client: CriClient;
  timeline: Timeline;
  runId: string;
  checkId: string;
  /** The factory of the caller's trial (or the check's outside trials). */
  make: () => ConfigFactory;
  /** The trial the caller runs in (trial-scope.ts): lists see only its objects, calls are its own. */
  trialOf?: () => number | undefined;
  runtimeHandler: string;
  callTimeoutMs: number;
  signal: AbortSignal;
  beforeCall?: (method: CriMethod, request: unknown) => Promise<void>;
  /** Told of every call before it goes out and of its outcome, to tell the check's doing from another's. */
  objects?: CheckObjects;
  /** Beside another client: a last look at the check's objects before a Stop or Remove of its own. */
  lookBeforeEnding?: () => Promise<void>;
  /** The run's own ids, told those that errors name (the abandoned attempt holding the run's name). */
  ownIds?: OwnIds;
}

export class CheckCri implements TrackedCri {
  private readonly client: CriClient;
  /** Calls in flight, each with the trial it was made in. */
  private readonly inFlight = new Map<Promise<unknown>, number | undefined>();
  /** The trial each request was sent from, for its timeline entry. */
  private readonly trialOfRequest = new WeakMap<object, number>();

  constructor(private readonly deps: TrackedCriDeps) {
    this.client = deps.client.withObserver((r) => this.record(r));
  }

  /**
   * Settles when every call this check started (or, with `trial`, that trial started) has returned, or
   * the wait gives up.
   */
  async settled(withinMs: number, trial?: number): Promise<boolean> {
    const deadline = Date.now() + withinMs;
    const mine = () =>
      [...this.inFlight].filter(([, t]) => trial === undefined || t === trial).map(([p]) => p);
    while (mine().length > 0 && Date.now() < deadline) {
      const left = deadline - Date.now();
      await Promise.race([Promise.allSettled(mine()), delay(left)]);
    }
    return mine().length === 0;
  }

  private trial(): number | undefined {
    return this.deps.trialOf?.();
  }

  call<M extends CriMethod>(
    method: M,
    request: CriRequest<M>,
    opts: CountedCallOpts = {},
  ): Promise<CriResponse<M>> {
    // Once the check has ended, code it abandoned must not reach the runtime, and calls in flight are cancelled.
    const checkSignal = this.deps.signal;
    if (checkSignal.aborted) return Promise.reject(checkSignal.reason);
    const unsafe = missingLogPath(method, request);
    // The kubelet never sends this, and a kubelet beside the run would delete files because of it.
    if (unsafe) return Promise.reject(new Error(`cri-conform refused to send ${unsafe} (a bug of the tool)`));
    makeContainerLogDir(method, request);
    const shaped = kubeletShaped(method, request);
    const trial = this.trial();
    if (trial !== undefined && typeof shaped === 'object' && shaped !== null)
      this.trialOfRequest.set(shaped, trial);
    const deadlineMs = opts.deadlineMs ?? this.deps.callTimeoutMs;
    const outgoing = { method, shaped, opts, deadlineMs, trial };
    const sending = sendCall(this.client, this.deps, outgoing);
    this.inFlight.set(sending.reply, trial);
    followCall(this.deps, outgoing, sending, {
      forget: () => this.inFlight.delete(sending.reply),
      judgeOwnStop: (objects, stop, answered) =>
        judgeOwnStop((id) => this.containerStatus(id), objects, stop, answered),
    });
    return sending.reply;
  }

  async tryCall<M extends CriMethod>(
    method: M,
    request: CriRequest<M>,
    opts?: CountedCallOpts,
  ): Promise<CallResult<CriResponse<M>>> {
    const started = performance.now();
    try {
      const value = await this.call(method, request, opts);
      return { ok: true, value, latencyMs: performance.now() - started };
    } catch (e) {
      if (!(e instanceof CriCallError)) throw e;
      return {
        ok: false,
        code: e.statusName,
        codeNumber: e.status,
        message: e.details,
        latencyMs: performance.now() - started,
      };
    }
  }

  /**
   * Retries that never succeed spend the whole budget, and must: a runtime that never converges can only be
   * told from a slow one by waiting out the window the contract gives it. That span is then a required
   * wait, counted once (attempts inside it that timed out are not counted again). A runtime that still
   * lists nothing under the request's name when the budget runs out is given the policy's settleMs more.
   */
  async retry<M extends CriMethod>(
    method: M,
    request: CriRequest<M>,
    policy: RetryPolicy,
  ): Promise<RetryOutcome<CriResponse<M>>> {
    const timeline = this.deps.timeline;
    // The attempts' own waits count only when the retries converged; else the whole span counts, once.
    let attemptsMs = 0;
    const countWait = (ms: number) => {
      attemptsMs += ms;
    };
    const startedAt = performance.now();
    const outcome = await retryLikeKubelet(
      (deadlineMs) => this.tryCall(method, request, { deadlineMs, countWait }),
      policy,
      this.deps.signal,
      () => this.nothingUnderName(method, request),
    );
    if (outcome.settlingMs !== undefined)
      timeline.note(
        `the runtime listed nothing under the request's name when the ${policy.budgetMs} ms budget ran out (the timed-out request still being built or rolled back): retries went on ${outcome.settlingMs} ms more, ${outcome.value === undefined ? 'without converging' : 'and converged'}`,
      );
    if (outcome.grownDeadlineMs !== undefined)
      timeline.note(
        `a retry was cut off by its own deadline while the runtime still built it (a kubelet's call would have waited): later retries were given up to ${outcome.grownDeadlineMs} ms`,
      );
    if (outcome.value === undefined && !this.deps.signal.aborted) {
      const spentMs = Math.min(performance.now() - startedAt, policy.budgetMs + (outcome.settlingMs ?? 0));
      timeline.addRequiredWait(spentMs);
      // scripts/lib/bench-breakdown.js reads this note, to show the ratio with and without these waits.
      timeline.note(
        `retries did not converge in ${Math.round(spentMs)} ms of their budget (a required wait)`,
      );
    } else timeline.addRequiredWait(attemptsMs);
    return outcome;
  }

  /**
   * Whether the runtime lists none of the check's objects under the name the request creates: nothing
   * has come of it yet. False for other calls, and when the listing fails (no proof of anything).
   */
  private async nothingUnderName(method: CriMethod, request: unknown): Promise<boolean> {
    const listed =
      method === 'RunPodSandbox'
        ? this.listPods({ name: (request as CriRequest<'RunPodSandbox'>).config.metadata.name })
        : method === 'CreateContainer'
          ? this.listContainers({
              podId: (request as CriRequest<'CreateContainer'>).podSandboxId,
              name: (request as CriRequest<'CreateContainer'>).config.metadata.name,
            })
          : undefined;
    if (!listed) return false;
    return listed.then(
      (items) => items.length === 0,
      () => false,
    );
  }

  runPodRequest(config: PodSandboxConfig, runtimeHandler?: string): RunPodRequest {
    // '' names the runtime's default handler in CRI; here it means "the handler this run uses".
    return { config, runtimeHandler: runtimeHandler || this.deps.runtimeHandler };
  }

  async runPod(config: PodSandboxConfig, opts: HandlerOpts = {}): Promise<string> {
    const reply = await this.call('RunPodSandbox', this.runPodRequest(config, opts.runtimeHandler), opts);
    return reply.podSandboxId;
  }

  async tryRunPod(config: PodSandboxConfig, opts: HandlerOpts = {}): Promise<CallResult<string>> {
    const reply = await this.tryCall('RunPodSandbox', this.runPodRequest(config, opts.runtimeHandler), opts);
    return reply.ok ? { ...reply, value: reply.value.podSandboxId } : reply;
  }

  async stopPod(podSandboxId: string, opts?: CallOpts): Promise<void> {
    await this.call('StopPodSandbox', { podSandboxId }, opts);
  }

  async removePod(podSandboxId: string, opts?: CallOpts): Promise<void> {
    await this.call('RemovePodSandbox', { podSandboxId }, opts);
  }

  async podStatus(podSandboxId: string) {
    const reply = await this.call('PodSandboxStatus', { podSandboxId, verbose: false });
    if (!reply.status) throw new CriCallError('PodSandboxStatus', 2, 'UNKNOWN', 'reply has no status', 0, 0);
    return reply.status;
  }

  /** The sandbox's state, or 'GONE' on NOT_FOUND; any other failure throws: it is no proof of absence. */
  podStateOrGone(podSandboxId: string): Promise<string> {
    return goneOnNotFound(this.podStatus(podSandboxId));
  }

  /** As podStateOrGone, for a container. */
  containerStateOrGone(containerId: string): Promise<string> {
    return goneOnNotFound(this.containerStatus(containerId));
  }

  async listPods(filter: { name?: string; state?: 'SANDBOX_READY' | 'SANDBOX_NOTREADY' } = {}) {
    const reply = await this.call('ListPodSandbox', {
      filter: {
        labelSelector: this.ownLabels(),
        state: filter.state ? { state: filter.state } : null,
      },
    });
    return reply.items
      .map(
        (p): PodSandboxListItem => ({
          id: p.id,
          name: p.metadata.name,
          attempt: p.metadata.attempt,
          uid: p.metadata.uid,
          state: p.state,
          labels: p.labels,
        }),
      )
      .filter((p) => filter.name === undefined || p.name === filter.name);
  }

  async createContainer(
    podSandboxId: string,
    config: CriRequest<'CreateContainer'>['config'],
    sandboxConfig: PodSandboxConfig,
    opts?: CallOpts,
  ): Promise<string> {
    const reply = await this.call('CreateContainer', { podSandboxId, config, sandboxConfig }, opts);
    return reply.containerId;
  }

  async startContainer(containerId: string, opts?: CallOpts): Promise<void> {
    await this.call('StartContainer', { containerId }, opts);
  }

  async stopContainer(containerId: string, timeoutS: number, opts?: CallOpts): Promise<void> {
    await this.call('StopContainer', { containerId, timeout: String(timeoutS) }, opts);
  }

  async removeContainer(containerId: string, opts?: CallOpts): Promise<void> {
    await this.call('RemoveContainer', { containerId }, opts);
  }

  async containerStatus(containerId: string) {
    const reply = await this.call('ContainerStatus', { containerId, verbose: false });
    if (!reply.status) throw new CriCallError('ContainerStatus', 2, 'UNKNOWN', 'reply has no status', 0, 0);
    return reply.status;
  }

  async listContainers(filter: { podId?: string; name?: string } = {}) {
    const reply = await this.call('ListContainers', {
      filter: { labelSelector: this.ownLabels(), podSandboxId: filter.podId ?? '' },
    });
    return reply.containers
      .map(
        (c): ContainerListItem => ({
          id: c.id,
          podSandboxId: c.podSandboxId,
          name: c.metadata.name,
          attempt: c.metadata.attempt,
          state: c.state,
          labels: c.labels,
        }),
      )
      .filter((c) => filter.name === undefined || c.name === filter.name);
  }

  async runPodWithContainer(
    name: string,
    opts: Parameters<TrackedCri['runPodWithContainer']>[1] = {},
  ): Promise<{ podId: string; containerId: string; podConfig: PodSandboxConfig }> {
    const make = this.deps.make();
    const podConfig = make.pod(name, opts.pod);
    const podId = await this.runPod(podConfig);
    const config = make.container('workload', { ...opts.container, command: opts.command });
    const containerId = await this.createContainer(podId, config, podConfig);
    if (opts.exitsByItself) this.deps.objects?.exitsByItself(containerId);
    await this.startContainer(containerId);
    return { podId, containerId, podConfig };
  }

  /** The check's labels, and inside a trial the trial's: a trial lists only its own objects. */
  private ownLabels(): Record<string, string> {
    const trial = this.trial();
    return {
      [RUN_LABEL]: this.deps.runId,
      [CHECK_LABEL]: this.deps.checkId,
      ...(trial === undefined ? {} : { [TRIAL_LABEL]: String(trial) }),
    };
  }

  private record(r: CallRecord): void {
    this.deps.ownIds?.addFromError(r.message);
    this.deps.ownIds?.addMade(r.method, r.reply);
    const trial =
      typeof r.request === 'object' && r.request !== null ? this.trialOfRequest.get(r.request) : undefined;
    this.deps.timeline.add(
      {
        kind: 'cri',
        ...(trial === undefined ? {} : { trial }),
        method: r.method,
        ids: describeRequest(r.request),
        deadlineMs: r.deadlineMs,
        latencyMs: Math.round(r.latencyMs),
        code: r.statusName,
        ...(r.message ? { message: r.message } : {}),
      },
      r.startedAt,
    );
  }
}

/** The ids or names a request is about, short enough for one timeline line. */
export function describeRequest(request: unknown): string {
  if (typeof request !== 'object' || request === null) return '';
  const r = request as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of ['podSandboxId', 'containerId'] as const) {
    const v = r[key];
    if (typeof v === 'string' && v !== '')
      parts.push(`${key === 'podSandboxId' ? 'pod' : 'ctr'}=${shortId(v)}`);
  }
  const config = r.config as { metadata?: { name?: string; attempt?: number } } | undefined;
  if (config?.metadata?.name) parts.push(`name=${config.metadata.name}#${config.metadata.attempt ?? 0}`);
  if (typeof r.runtimeHandler === 'string' && r.runtimeHandler !== '')
    parts.push(`handler=${r.runtimeHandler}`);
  return parts.join(' ');
}

async function goneOnNotFound(status: Promise<{ state: string }>): Promise<string> {
  try {
    return (await status).state;
  } catch (e) {
    if (e instanceof CriCallError && e.statusName === 'NOT_FOUND') return 'GONE';
    throw e;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());
}
