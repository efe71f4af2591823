/**
 * An external NRI plugin for conformance checks: it registers with a runtime, records the events of the
 * pods it accepts, and misbehaves on purpose where a fault says so. It never adjusts a container: every
 * reply is the empty message.
 *
 * Registration (shared/notes/nri-protocol.md 4.1): dial; serve conn 1 before sending anything; send
 * RegisterPlugin on conn 2; answer Configure even before the RegisterPlugin reply; answer Synchronize
 * (echoing `more`, collecting pages). `start` resolves when the RegisterPlugin reply has arrived and the
 * final Synchronize reply has been written. A closed plugin is not reused: start a new one.
 */
import { createConnection, type Socket } from 'node:net';
import { NriProtocolError } from './errors.js';
import { EventLog } from './event-log.js';
import { eventsInMask, eventsMask } from './event-mask.js';
import { type FaultHandle, FaultTable } from './faults.js';
import { GRPC_UNKNOWN } from './grpc-codes.js';
import {
  decodeProto,
  encodeProto,
  PLUGIN_SERVICE,
  RUNTIME_SERVICE,
  type WireContainer,
  type WirePod,
} from './messages.js';
import { Mux, PLUGIN_SERVICE_CONN, RUNTIME_SERVICE_CONN } from './mux.js';
import { toNriContainer, toNriPod } from './normalise.js';
import { inferNriVersion, UNKNOWN_NRI_VERSION, validEventsMask } from './nri-version.js';
import { decodeEventCall, EVENT_METHODS } from './plugin-events.js';
import { type PluginOptions, type ResolvedPluginOptions, resolvePluginOptions } from './plugin-options.js';
import { TtrpcClient } from './ttrpc-client.js';
import { type TtrpcCall, type TtrpcHandler, type TtrpcReply, TtrpcServer } from './ttrpc-server.js';
import type { FaultSpec, NriContainer, NriEventName, NriEventRecord, NriPod } from './types.js';

export type { FaultHandle } from './faults.js';
export type { PluginOptions } from './plugin-options.js';

export interface RuntimeInfo {
  name: string;
  version: string;
  /** Sent by the runtime (NRI v0.12+) or inferred from name and version; 'unknown' when neither works. */
  nriVersion: string;
  requestTimeoutMs: number;
  registrationTimeoutMs: number;
  /** Whether the runtime sent the two timeouts in Configure (NRI v0.7+); if not, they are NRI's defaults. */
  sentTimeouts: boolean;
}

/** How long close() waits for replies in flight (released hangs) to be written before cutting the socket. */
const CLOSE_DRAIN_MS = 1000;

export class NriPlugin {
  readonly runtime: RuntimeInfo = {
    name: '',
    version: '',
    nriVersion: UNKNOWN_NRI_VERSION,
    requestTimeoutMs: 2000,
    registrationTimeoutMs: 5000,
    sentTimeouts: false,
  };
  readonly synchronized: { pods: NriPod[]; containers: NriContainer[] } = { pods: [], containers: [] };
  readonly events = new EventLog();
  /** Settles when the trunk ends: undefined if close() ended it, else the reason. */
  readonly closed: Promise<Error | undefined>;
  /** The events the runtime was asked for: the requested ones it knows. */
  subscribed: NriEventName[] = [];

  private readonly mux: Mux;
  private readonly client: TtrpcClient;
  private readonly server: TtrpcServer;
  private readonly faults = new FaultTable();
  private syncPages: { pods: NriPod[]; containers: NriContainer[] } = { pods: [], containers: [] };
  private synced = false;
  private onSynced: () => void = () => {};
  private onConfigureRefused: (err: Error) => void = () => {};
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly opts: ResolvedPluginOptions,
    socket: Socket,
  ) {
    this.mux = new Mux(socket);
    const handlers: Record<string, TtrpcHandler> = {
      Configure: (c) => this.configure(c),
      Synchronize: (c) => this.synchronize(c),
      Shutdown: () => ({}),
    };
    for (const m of EVENT_METHODS) handlers[m] = (c) => this.onEventCall(c);
    // Serve conn 1 before anything is sent: Configure may arrive before the RegisterPlugin reply.
    this.server = new TtrpcServer(this.mux.open(PLUGIN_SERVICE_CONN), { [PLUGIN_SERVICE]: handlers });
    this.client = new TtrpcClient(this.mux.open(RUNTIME_SERVICE_CONN));
    this.closed = this.mux.closed;
    void this.closed.then((cause) => {
      this.faults.releaseAll();
      this.events.end(cause ?? new NriProtocolError('ERR_NRI_CLOSED', 'plugin closed'));
    });
  }

  /** Connects and registers; rejects with ERR_NRI_CONNECT, ERR_NRI_INVALID_OPTIONS or ERR_NRI_REGISTRATION. */
  static async start(options: PluginOptions): Promise<NriPlugin> {
    const opts = resolvePluginOptions(options);
    const plugin = new NriPlugin(opts, await dial(opts.socketPath));
    try {
      await plugin.register();
    } catch (err) {
      await plugin.close();
      throw err;
    }
    return plugin;
  }

  /** True from a completed registration until the trunk ends. */
  isConnected(): boolean {
    return this.synced && !this.mux.isClosed;
  }

  addFault(spec: FaultSpec): FaultHandle {
    return this.faults.add(spec);
  }

  /** Replies OK to every held event, ends the socket; idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.faults.releaseAll();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.server.drain(), new Promise((r) => (timer = setTimeout(r, CLOSE_DRAIN_MS)))]);
      clearTimeout(timer);
      this.mux.close();
      await this.mux.closed;
    })();
    return this.closing;
  }

  private register(): Promise<void> {
    const ms = this.opts.registrationTimeoutMs;
    const label = `NRI plugin ${this.opts.index}-${this.opts.name} at ${this.opts.socketPath}`;
    const fail = (why: string, cause?: unknown) =>
      new NriProtocolError('ERR_NRI_REGISTRATION', `${label}: ${why}`, { cause });
    return new Promise<void>((resolve, reject) => {
      let registered = false;
      const timer = setTimeout(() => {
        const stage = !registered
          ? 'no RegisterPlugin reply'
          : this.subscribed.length === 0
            ? 'no Configure'
            : 'no Synchronize';
        reject(
          fail(
            `registration not completed within ${ms} ms (${stage}; runtime ${this.runtime.name || '?'} NRI ${this.runtime.nriVersion})`,
          ),
        );
      }, ms);
      const finish = (err?: Error) => {
        if (err) {
          clearTimeout(timer);
          reject(err);
        } else if (registered && this.synced) {
          clearTimeout(timer);
          resolve();
        }
      };
      this.onSynced = () => finish();
      this.onConfigureRefused = (err) => finish(fail(err.message, err));
      const req = encodeProto('RegisterPluginRequest', {
        pluginName: this.opts.name,
        pluginIdx: this.opts.index,
      });
      this.client.call(RUNTIME_SERVICE, 'RegisterPlugin', req, { timeoutMs: ms }).then(
        () => {
          registered = true;
          finish();
        },
        (err: Error) => finish(fail(`RegisterPlugin failed: ${err.message}`, err)),
      );
      void this.mux.closed.then((cause) =>
        finish(fail(`connection closed during registration: ${cause?.message ?? 'closed locally'}`, cause)),
      );
    });
  }

  private configure(call: TtrpcCall): TtrpcReply {
    const req = decodeProto<{
      runtimeName: string;
      runtimeVersion: string;
      registrationTimeout: number;
      requestTimeout: number;
      NRIVersion: string;
    }>('ConfigureRequest', call.payload);
    Object.assign(this.runtime, {
      name: req.runtimeName,
      version: req.runtimeVersion,
      nriVersion: req.NRIVersion || inferNriVersion(req.runtimeName, req.runtimeVersion),
      requestTimeoutMs: req.requestTimeout || 2000,
      registrationTimeoutMs: req.registrationTimeout || 5000,
      sentTimeouts: req.requestTimeout > 0 && req.registrationTimeout > 0,
    });
    // Never reply 0 (it means "everything") and never a bit the runtime does not know (it closes us).
    const mask = eventsMask(this.opts.events) & validEventsMask(this.runtime.nriVersion);
    this.subscribed = eventsInMask(mask);
    if (mask === 0) {
      const message = `none of ${this.opts.events.join(', ')} is known to ${req.runtimeName} ${req.runtimeVersion} (NRI ${this.runtime.nriVersion})`;
      this.onConfigureRefused(new Error(message));
      return { status: { code: GRPC_UNKNOWN, message } };
    }
    return { payload: encodeProto('ConfigureResponse', { events: mask }) };
  }

  private synchronize(call: TtrpcCall): TtrpcReply {
    const req = decodeProto<{ pods: WirePod[]; containers: WireContainer[]; more: boolean }>(
      'SynchronizeRequest',
      call.payload,
    );
    this.syncPages.pods.push(...req.pods.map(toNriPod));
    this.syncPages.containers.push(...req.containers.map(toNriContainer));
    if (req.more) return { payload: encodeProto('SynchronizeResponse', { more: true }) };
    Object.assign(this.synchronized, this.syncPages);
    this.syncPages = { pods: [], containers: [] };
    return {
      onSent: () => {
        this.synced = true;
        this.onSynced();
      },
    };
  }

  private async onEventCall(call: TtrpcCall): Promise<TtrpcReply> {
    const atMs = performance.now();
    const decoded = decodeEventCall(call.method, call.payload);
    if (!decoded || (this.opts.acceptsPod && !this.opts.acceptsPod(decoded.pod, decoded.container)))
      return {};
    const record: NriEventRecord = {
      seq: this.opts.sequence(),
      atMs,
      pluginName: this.opts.name,
      pluginIndex: this.opts.index,
      ...decoded,
      ...(call.timeoutMs !== undefined ? { timeoutMs: call.timeoutMs } : {}),
    };
    const fault = this.faults.take(record);
    this.events.record(record);
    try {
      this.opts.onEvent?.(record);
    } catch {
      // The caller's bug must not change the reply the runtime gets.
    }
    if (!fault) return {};
    const outcome = await fault();
    if (outcome.reply === 'ok' && outcome.hungUntilClosedMs !== undefined)
      this.opts.onHungUntilClosed?.(record, outcome.hungUntilClosedMs);
    if (outcome.reply === 'error') return { status: { code: GRPC_UNKNOWN, message: outcome.message } };
    if (outcome.reply === 'crash') {
      this.mux.close(
        new NriProtocolError('ERR_NRI_CRASH_FAULT', `crash fault on ${record.event} closed the connection`),
      );
      return { noReply: true };
    }
    return {};
  }
}

function dial(socketPath: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      reject(
        new NriProtocolError(
          'ERR_NRI_CONNECT',
          `cannot connect to NRI socket ${socketPath}: ${err.code ?? err.message}`,
          { cause: err },
        ),
      );
    });
  });
}
