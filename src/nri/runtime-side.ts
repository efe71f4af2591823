/**
 * The runtime side of NRI as a reference runtime embeds it: a unix-socket server that admits plugins
 * one at a time (register -> Configure -> Synchronize, then the plugin joins the list sorted by index)
 * and relays events to them one plugin at a time, classifying each reply the way the upstream
 * adaptation does: an error status stops the relay (unless continueOnError) and keeps the plugin; a
 * reply past the deadline or a closed connection removes the plugin (a late one is closed first) and
 * does not fail the relay. Every delivery holds one lock across all pods, as real runtimes do.
 */
import { rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { isNriError } from './errors.js';
import { fromNriContainer, fromNriPod } from './normalise.js';
import { inferNriVersion, validEventsMask } from './nri-version.js';
import { ConnectedPlugin, type RuntimeSideConfig } from './runtime-plugin.js';
import { SerialQueue } from './serial-queue.js';
import type { NriContainer, NriEventName, NriPod } from './types.js';

export interface NriRuntimeOptions {
  socketPath: string;
  runtimeName: string;
  runtimeVersion: string;
  requestTimeoutMs: number;
  registrationTimeoutMs: number;
  /** 'dedicated': NRI v0.12 style, falling back to StateChange for a plugin that answers 12. */
  podEventsVia: 'StateChange' | 'dedicated';
  /** The state a registering plugin gets; may throw to refuse that plugin. */
  sync: (who: { name: string; index: string }) => { pods: NriPod[]; containers: NriContainer[] };
  /** The NRI version to emulate; default v0.12.0 for 'dedicated', else inferred from runtime name/version. */
  nriVersion?: string;
}

export interface DeliveryResult {
  plugin: string;
  index: string;
  outcome: 'ok' | 'error' | 'timeout' | 'closed' | 'skipped';
  message?: string;
  latencyMs: number;
}

export interface DeliverOptions {
  /** Default false: stop at the first plugin error, like upstream's relay loops; teardown passes true. */
  continueOnError?: boolean;
  /** Default: requestTimeoutMs. */
  timeoutMs?: number;
  signal?: AbortSignal;
  order?: 'ascending' | 'descending';
}

export interface PluginSummary {
  name: string;
  index: string;
  /** The subscription mask. */
  events: number;
}

export class NriRuntime {
  private readonly list: ConnectedPlugin[] = [];
  private readonly admissions = new SerialQueue();
  private readonly deliveries = new SerialQueue();
  private readonly pending = new Set<ConnectedPlugin>();
  private readonly listeners = new Set<(plugins: PluginSummary[]) => void>();
  private readonly cfg: RuntimeSideConfig;

  private constructor(
    private readonly opts: NriRuntimeOptions,
    private readonly server: Server,
  ) {
    const nriVersion =
      opts.nriVersion ??
      (opts.podEventsVia === 'dedicated'
        ? 'v0.12.0'
        : inferNriVersion(opts.runtimeName, opts.runtimeVersion));
    this.cfg = { ...opts, nriVersion, validEventsMask: validEventsMask(nriVersion) };
    server.on('connection', (socket) => this.accept(socket));
  }

  /** Listens on `socketPath` (a stale socket file is removed first). */
  static async listen(opts: NriRuntimeOptions): Promise<NriRuntime> {
    await rm(opts.socketPath, { force: true });
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new NriRuntime(opts, server);
  }

  /** Registered plugins in delivery order. */
  plugins(): PluginSummary[] {
    return this.list.map((p) => ({ name: p.name, index: p.index, events: p.events }));
  }

  /** Calls `cb` with the new list whenever a plugin joins or leaves; returns the unsubscribe function. */
  onPluginChange(cb: (plugins: PluginSummary[]) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  /** Relays `event` to every subscribed plugin, one at a time; see the module doc for the outcomes. */
  deliver(
    event: NriEventName,
    pod: NriPod,
    container?: NriContainer,
    opts: DeliverOptions = {},
  ): Promise<DeliveryResult[]> {
    return this.deliveries.run(async () => {
      const targets = this.list.filter((p) => p.subscribes(event));
      if (opts.order === 'descending') targets.reverse();
      const results: DeliveryResult[] = [];
      let stopped: string | undefined;
      for (const p of targets) {
        const base = { plugin: p.name, index: p.index };
        if (stopped !== undefined || p.mux.isClosed) {
          results.push({
            ...base,
            outcome: p.mux.isClosed ? 'closed' : 'skipped',
            ...(stopped ? { message: stopped } : {}),
            latencyMs: 0,
          });
          continue;
        }
        const started = performance.now();
        const timeoutMs = opts.timeoutMs ?? this.opts.requestTimeoutMs;
        try {
          await p.send(event, pod, container, { timeoutMs, ...(opts.signal ? { signal: opts.signal } : {}) });
          results.push({ ...base, outcome: 'ok', latencyMs: performance.now() - started });
        } catch (err) {
          const r = this.classify(p, err);
          results.push({ ...base, ...r, latencyMs: performance.now() - started });
          if (r.outcome === 'error' && !opts.continueOnError)
            stopped = `after ${p.index}-${p.name} failed: ${r.message}`;
        }
      }
      return results;
    });
  }

  /** Stops accepting, closes every plugin connection and removes the socket file. */
  async close(): Promise<void> {
    const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const p of [...this.list, ...this.pending]) p.mux.close();
    await stopped;
    await rm(this.opts.socketPath, { force: true });
  }

  private classify(
    p: ConnectedPlugin,
    err: unknown,
  ): { outcome: DeliveryResult['outcome']; message: string } {
    const message = err instanceof Error ? err.message : String(err);
    if (isNriError(err, 'ERR_NRI_TTRPC_STATUS') || isNriError(err, 'ERR_NRI_ABORTED'))
      return { outcome: 'error', message };
    if (isNriError(err, 'ERR_NRI_TIMEOUT')) {
      p.mux.close(err); // upstream closes a plugin that missed its deadline
      this.remove(p);
      return { outcome: 'timeout', message };
    }
    p.mux.close(err instanceof Error ? err : undefined);
    this.remove(p);
    return { outcome: 'closed', message };
  }

  private accept(socket: Socket): void {
    const p = new ConnectedPlugin(socket, this.cfg);
    this.pending.add(p);
    void p.mux.closed.then(() => this.remove(p));
    void this.admissions.run(async () => {
      try {
        const sync = (who: { name: string; index: string }) => {
          const s = this.opts.sync(who);
          return { pods: s.pods.map(fromNriPod), containers: s.containers.map(fromNriContainer) };
        };
        await p.handshake(sync, (job) => this.deliveries.run(job));
        if (p.mux.isClosed) return;
        this.list.push(p);
        this.list.sort((a, b) => (a.index < b.index ? -1 : a.index > b.index ? 1 : 0));
        this.changed();
      } catch (err) {
        p.mux.close(err instanceof Error ? err : new Error(String(err)));
      } finally {
        this.pending.delete(p);
      }
    });
  }

  private remove(p: ConnectedPlugin): void {
    const i = this.list.indexOf(p);
    if (i < 0) return;
    this.list.splice(i, 1);
    this.changed();
  }

  private changed(): void {
    const snapshot = this.plugins();
    for (const cb of [...this.listeners]) cb(snapshot);
  }
}
