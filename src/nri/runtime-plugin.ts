/**
 * The runtime side's view of one connected plugin: the registration handshake it drives and the event
 * calls it makes, over the same mux and ttrpc code the plugin uses (roles swapped: client on conn 1,
 * server on conn 2).
 */
import type { Socket } from 'node:net';
import { NriProtocolError } from './errors.js';
import { EVENT_VALUES } from './event-mask.js';
import { GRPC_UNIMPLEMENTED } from './grpc-codes.js';
import { decodeProto, encodeProto, PLUGIN_SERVICE, RUNTIME_SERVICE } from './messages.js';
import { Mux, PLUGIN_SERVICE_CONN, RUNTIME_SERVICE_CONN } from './mux.js';
import { fromNriContainer, fromNriPod } from './normalise.js';
import { compareVersions } from './nri-version.js';
import { TtrpcClient } from './ttrpc-client.js';
import { type TtrpcCall, type TtrpcReply, TtrpcServer } from './ttrpc-server.js';
import type { NriContainer, NriEventName, NriPod } from './types.js';

export interface RuntimeSideConfig {
  runtimeName: string;
  runtimeVersion: string;
  /** Sent in ConfigureRequest only when it is v0.12.0 or later, as real runtimes do. */
  nriVersion: string;
  validEventsMask: number;
  requestTimeoutMs: number;
  registrationTimeoutMs: number;
  podEventsVia: 'StateChange' | 'dedicated';
}

/** Events with their own RPC on every version that knows them. */
const ALWAYS_DEDICATED = new Set<NriEventName>([
  'CreateContainer',
  'UpdateContainer',
  'StopContainer',
  'UpdatePodSandbox',
  'ValidateContainerAdjustment',
]);

export class ConnectedPlugin {
  name = '';
  index = '';
  /** The subscription mask (0 from the plugin is widened to every valid event). */
  events = 0;
  /** Set once the plugin answered a dedicated RPC with 12: it gets StateChange from then on. */
  usesStateChange = false;
  readonly mux: Mux;
  private readonly client: TtrpcClient;
  private registered: ((r: { name: string; index: string }) => void) | undefined;

  constructor(
    socket: Socket,
    private readonly cfg: RuntimeSideConfig,
  ) {
    this.mux = new Mux(socket);
    this.client = new TtrpcClient(this.mux.open(PLUGIN_SERVICE_CONN));
    new TtrpcServer(this.mux.open(RUNTIME_SERVICE_CONN), {
      [RUNTIME_SERVICE]: {
        RegisterPlugin: (c) => this.onRegister(c),
        UpdateContainers: () => ({}), // nothing fails because nothing is applied
      },
    });
  }

  /** register -> Configure -> Synchronize (the last inside `syncLock`). Throws; the caller closes. */
  /** `sync` gets the registered plugin's name and index; it may throw to refuse the plugin. */
  async handshake(
    sync: (who: { name: string; index: string }) => object,
    syncLock: <T>(job: () => Promise<T>) => Promise<T>,
  ): Promise<void> {
    const who = await this.waitRegistration();
    Object.assign(this, who);
    const sendVersion = compareVersions(this.cfg.nriVersion, 'v0.12.0') >= 0;
    const configure = encodeProto('ConfigureRequest', {
      runtimeName: this.cfg.runtimeName,
      runtimeVersion: this.cfg.runtimeVersion,
      registrationTimeout: this.cfg.registrationTimeoutMs,
      requestTimeout: this.cfg.requestTimeoutMs,
      ...(sendVersion ? { NRIVersion: this.cfg.nriVersion } : {}),
    });
    const reply = await this.client.call(PLUGIN_SERVICE, 'Configure', configure, {
      timeoutMs: this.cfg.requestTimeoutMs,
    });
    const { events } = decodeProto<{ events: number }>('ConfigureResponse', reply);
    if ((events & ~this.cfg.validEventsMask) !== 0)
      throw new Error(`invalid plugin events: 0x${events.toString(16)}`);
    this.events = events === 0 ? this.cfg.validEventsMask : events;
    await syncLock(async () => {
      const req = encodeProto('SynchronizeRequest', { ...sync(who), more: false });
      await this.client.call(PLUGIN_SERVICE, 'Synchronize', req, { timeoutMs: this.cfg.requestTimeoutMs });
    });
  }

  subscribes(event: NriEventName): boolean {
    return (this.events & (1 << (EVENT_VALUES[event] - 1))) !== 0;
  }

  /** Relays one event; throws the ttrpc error (status, timeout, closed) for the caller to classify. */
  async send(
    event: NriEventName,
    pod: NriPod,
    container: NriContainer | undefined,
    opts: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<void> {
    const deadline = performance.now() + opts.timeoutMs;
    const body = { pod: fromNriPod(pod), ...(container ? { container: fromNriContainer(container) } : {}) };
    const left = () => ({
      timeoutMs: Math.max(1, deadline - performance.now()),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const dedicated =
      ALWAYS_DEDICATED.has(event) || (this.cfg.podEventsVia === 'dedicated' && !this.usesStateChange);
    if (dedicated) {
      try {
        const reply = await this.client.call(
          PLUGIN_SERVICE,
          event,
          encodeProto(`${event}Request`, body),
          left(),
        );
        if (event === 'ValidateContainerAdjustment') rejectIfRefused(reply);
        return;
      } catch (err) {
        const unimplemented = err instanceof NriProtocolError && err.status === GRPC_UNIMPLEMENTED;
        if (!unimplemented || ALWAYS_DEDICATED.has(event)) throw err;
        this.usesStateChange = true; // NRI v0.12 behaviour: fall back for every wrapped event from now on
      }
    }
    const change = encodeProto('StateChangeEvent', { event: EVENT_VALUES[event], ...body });
    await this.client.call(PLUGIN_SERVICE, 'StateChange', change, left());
  }

  private waitRegistration(): Promise<{ name: string; index: string }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('plugin registration timed out')),
        this.cfg.registrationTimeoutMs,
      );
      this.registered = (r) => {
        clearTimeout(timer);
        resolve(r);
      };
      void this.mux.closed.then((cause) => {
        clearTimeout(timer);
        reject(new Error(`failed to register plugin, connection closed: ${cause?.message ?? 'closed'}`));
      });
    });
  }

  private onRegister(call: TtrpcCall): TtrpcReply {
    const req = decodeProto<{ pluginName: string; pluginIdx: string }>('RegisterPluginRequest', call.payload);
    const invalid = !/^\d{2}$/.test(req.pluginIdx)
      ? `invalid plugin index "${req.pluginIdx}", must be 2 digits`
      : !/^[a-zA-Z0-9_.+-]+$/.test(req.pluginName)
        ? `invalid plugin name "${req.pluginName}"`
        : undefined;
    if (invalid || !this.registered) {
      const message = invalid ?? 'plugin already registered';
      return { status: { code: 2, message } };
    }
    const done = this.registered;
    this.registered = undefined;
    done({ name: req.pluginName, index: req.pluginIdx });
    return {};
  }
}

function rejectIfRefused(reply: Buffer): void {
  const r = decodeProto<{ reject: boolean; reason: string }>('ValidateContainerAdjustmentResponse', reply);
  if (r.reject)
    throw new NriProtocolError('ERR_NRI_TTRPC_STATUS', `adjustment rejected: ${r.reason}`, { status: 2 });
}
