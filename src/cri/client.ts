/**
 * The CRI v1 client: one typed `call` per RPC with a per-call deadline and AbortSignal, every call reported
 * to an observer (the harness's timeline), and connection problems turned into CriConnectError before any
 * check runs.
 */
import { Client, type ClientOptions, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { answersV1alpha2, checkSocketFile, classifyVersionFailure } from './connect-probe.js';
import { type Endpoint, parseEndpoint } from './endpoint.js';
import { CriCallError, statusName } from './errors.js';
import { methodDefinition } from './load-proto.js';
import type { CriMethod, CriRequest, CriResponse, VersionResponse } from './types.js';
import { IMAGE_METHODS } from './types.js';

export interface CallOptions {
  /** Relative deadline; overrides the client's default. Undefined there too means no deadline. */
  deadlineMs?: number;
  /** Aborting cancels the call: it then rejects with CANCELLED. */
  signal?: AbortSignal;
  /**
   * The request still carries deadlineMs (grpc-timeout), but the client gives up only this much later.
   * Without it, the client's cancel and the runtime's own copy of the deadline race, and the runtime sees
   * Canceled or DeadlineExceeded by chance; with it, the runtime always sees its deadline expire, as it
   * does when a busy kubelet cancels late.
   */
  cancelLateByMs?: number;
}

/** One finished call, successful or not, as the observer sees it. */
export interface CallRecord {
  method: CriMethod;
  request: unknown;
  /** performance.now() when the call was started. */
  startedAt: number;
  latencyMs: number;
  deadlineMs: number | undefined;
  /** gRPC status number; 0 is OK. */
  code: number;
  statusName: string;
  /** The status details of a failed call. */
  message?: string;
  /** The decoded response of a call that succeeded. */
  reply?: unknown;
}

export type CallObserver = (record: CallRecord) => void;
/** Decides when a call is sent: it calls `send` (once) when the call may go, and returns what it returns. */
export type CallGate = <T>(method: CriMethod, send: () => Promise<T>) => Promise<T>;

export interface ConnectOptions {
  runtimeEndpoint: string;
  /** Defaults to the runtime endpoint (one channel then serves both services). */
  imageEndpoint?: string;
  /** Deadline of the first Version call, which proves the endpoint speaks CRI v1. */
  connectTimeoutMs?: number;
  /** Deadline of calls that do not pass their own. */
  defaultDeadlineMs?: number;
  observer?: CallObserver;
}

/** Kubernetes' CRI clients allow 16 MiB; grpc-js's default of 4 MiB fails List calls on busy nodes. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
const CHANNEL_OPTIONS: ClientOptions = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
};

interface Channels {
  runtime: Client;
  image: Client;
}

export class CriClient {
  private constructor(
    private readonly channels: Channels,
    /** What the runtime said to the Version call made while connecting. */
    readonly version: VersionResponse,
    private readonly defaultDeadlineMs: number | undefined,
    private readonly observer: CallObserver | undefined,
    private readonly gate?: CallGate,
  ) {}

  /**
   * Dials the endpoints and calls Version. Rejects with CriConnectError (never a raw gRPC error) when the
   * socket is missing, is not a socket, may not be opened, does not speak CRI v1, or does not answer in time.
   */
  static async connect(opts: ConnectOptions): Promise<CriClient> {
    const runtimeEp = parseEndpoint(opts.runtimeEndpoint);
    const imageEp = opts.imageEndpoint ? parseEndpoint(opts.imageEndpoint) : runtimeEp;
    checkSocketFile(runtimeEp);
    if (imageEp.target !== runtimeEp.target) checkSocketFile(imageEp);
    const runtime = dial(runtimeEp);
    const channels = { runtime, image: imageEp.target === runtimeEp.target ? runtime : dial(imageEp) };
    const timeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const probe = new CriClient(channels, emptyVersion(), opts.defaultDeadlineMs, opts.observer);
    try {
      const version = await probe.call('Version', { version: 'v1' }, { deadlineMs: timeoutMs });
      return new CriClient(channels, version, opts.defaultDeadlineMs, opts.observer);
    } catch (e) {
      probe.close();
      if (!(e instanceof CriCallError)) throw e;
      throw await classifyVersionFailure({ code: e.status, details: e.details }, runtimeEp, timeoutMs, () => {
        const prober = dial(runtimeEp);
        return answersV1alpha2(prober, timeoutMs).finally(() => prober.close());
      });
    }
  }

  /** The same channels with another observer: the harness gives each check its own timeline. */
  withObserver(observer: CallObserver): CriClient {
    return new CriClient(this.channels, this.version, this.defaultDeadlineMs, observer, this.gate);
  }

  /** The same channels, with `observer` seeing every call after the observer this client already has. */
  alsoObserved(observer: CallObserver): CriClient {
    const first = this.observer;
    const both: CallObserver = first
      ? (r) => {
          first(r);
          observer(r);
        }
      : observer;
    return this.withObserver(both);
  }

  /** The same channels, with every call sent when the gate lets it go. */
  withGate(gate: CallGate): CriClient {
    return new CriClient(this.channels, this.version, this.defaultDeadlineMs, this.observer, gate);
  }

  /**
   * Calls one RPC. Resolves with the decoded response; rejects with CriCallError for every non-OK status,
   * including DEADLINE_EXCEEDED (deadline) and CANCELLED (signal aborted). The observer sees every call.
   */
  call<M extends CriMethod>(
    method: M,
    request: CriRequest<M>,
    opts: CallOptions = {},
  ): Promise<CriResponse<M>> {
    const send = () => this.send(method, request, opts);
    return this.gate ? this.gate(method, send) : send();
  }

  private send<M extends CriMethod>(
    method: M,
    request: CriRequest<M>,
    opts: CallOptions,
  ): Promise<CriResponse<M>> {
    const def = methodDefinition(method);
    const channel = IMAGE_METHODS.has(method) ? this.channels.image : this.channels.runtime;
    const deadlineMs = opts.deadlineMs ?? this.defaultDeadlineMs;
    const { signal } = opts;
    let stopTimer = () => {};
    return new Promise((resolve, reject) => {
      const startedAt = performance.now();
      const finish = (err: ServiceError | null, value: unknown) => {
        stopTimer();
        signal?.removeEventListener('abort', onAbort);
        const latencyMs = performance.now() - startedAt;
        const code = err ? err.code : 0;
        const record: CallRecord = {
          method,
          request,
          startedAt,
          latencyMs,
          deadlineMs,
          code,
          statusName: statusName(code),
        };
        if (err) record.message = err.details;
        else record.reply = value;
        try {
          this.observer?.(record);
        } catch (observerError) {
          // An observer bug must not vanish inside a gRPC callback; it fails the call instead.
          reject(observerError);
          return;
        }
        if (err)
          reject(new CriCallError(method, err.code, record.statusName, err.details, latencyMs, deadlineMs));
        else resolve(value as CriResponse<M>);
      };
      const metadata = new Metadata();
      const late = deadlineMs === undefined ? 0 : (opts.cancelLateByMs ?? 0);
      // grpc-js sends grpc-timeout from its own deadline only, and a second header would lose to it, so a
      // late cancel sends the header itself and gives up with its own timer instead of a deadline.
      if (late > 0) metadata.set('grpc-timeout', `${Math.ceil(deadlineMs ?? 0)}m`);
      const call = channel.makeUnaryRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize,
        request,
        metadata,
        deadlineMs === undefined || late > 0 ? {} : { deadline: Date.now() + deadlineMs },
        finish,
      );
      const giveUp = late > 0 ? setTimeout(() => call.cancel(), (deadlineMs ?? 0) + late) : undefined;
      const onAbort = () => call.cancel();
      stopTimer = () => clearTimeout(giveUp);
      if (signal?.aborted) call.cancel();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Closes the channels. They are shared with every client made by withObserver: only the owner closes. */
  close(): void {
    this.channels.runtime.close();
    if (this.channels.image !== this.channels.runtime) this.channels.image.close();
  }
}

function dial(endpoint: Endpoint): Client {
  return new Client(endpoint.target, credentials.createInsecure(), CHANNEL_OPTIONS);
}

function emptyVersion(): VersionResponse {
  return { version: '', runtimeName: '', runtimeVersion: '', runtimeApiVersion: '' };
}
