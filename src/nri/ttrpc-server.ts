/**
 * A unary ttrpc server on one mux conn.
 *
 * Contract:
 * - Requests are routed by service and method; an unknown service gets status 12 "service <name>", an
 *   unknown method 12 "method <name>" (NRI v0.12 runtimes fall back to StateChange on exactly 12).
 * - Stream IDs must be odd and strictly increasing; a violation gets status 3 on that stream and the
 *   conn stays open. An oversized request gets status 8 on its stream; the conn stays open.
 * - Handlers run concurrently and may reply out of order. A handler error becomes a status (its
 *   `status` when it is an NriProtocolError that has one, else 2 Unknown).
 * - A message that is not a request (or too many requests in flight) ends the trunk with ERR_NRI_PROTOCOL.
 */
import { NriProtocolError } from './errors.js';
import {
  GRPC_INVALID_ARGUMENT,
  GRPC_RESOURCE_EXHAUSTED,
  GRPC_UNIMPLEMENTED,
  GRPC_UNKNOWN,
} from './grpc-codes.js';
import { decodeProto, encodeProto, type WireRequest, type WireStatus } from './messages.js';
import type { MuxConn } from './mux.js';
import {
  encodeMessage,
  isOversized,
  MESSAGE_TYPE_REQUEST,
  MESSAGE_TYPE_RESPONSE,
  MessageDecoder,
} from './ttrpc-codec.js';

export interface TtrpcCall {
  service: string;
  method: string;
  /** The request message bytes; empty when the peer omitted the payload. */
  payload: Buffer;
  /** The caller's deadline (timeout_nano) in ms, or undefined when none was sent. */
  timeoutMs: number | undefined;
  metadata: Record<string, string>;
  streamId: number;
}

/**
 * `payload`: success (empty = the empty message); `onSent` runs once the reply was handed to the socket.
 * `noReply`: send nothing (the handler closed the trunk, or the caller wants silence).
 */
export type TtrpcReply =
  | { payload?: Uint8Array; onSent?: () => void }
  | { status: WireStatus }
  | { noReply: true };
export type TtrpcHandler = (call: TtrpcCall) => Promise<TtrpcReply> | TtrpcReply;
/** service name -> method name -> handler. */
export type ServiceMap = Record<string, Record<string, TtrpcHandler>>;

export const DEFAULT_MAX_IN_FLIGHT = 1024;

export class TtrpcServer {
  private readonly decoder = new MessageDecoder();
  private lastStreamId = 0;
  private readonly pending = new Set<Promise<void>>();
  private ended = false;

  constructor(
    private readonly conn: MuxConn,
    private readonly services: ServiceMap,
    private readonly maxInFlight = DEFAULT_MAX_IN_FLIGHT,
  ) {
    conn.onData((chunk) => this.onData(chunk));
    conn.onClose(() => {
      this.ended = true;
    });
  }

  /** Requests whose handler has not replied yet. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Resolves when every request received so far has been answered (or dropped by a closed conn). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private onData(chunk: Buffer): void {
    for (const item of this.decoder.push(chunk)) {
      if (this.ended) return;
      if (item.type !== MESSAGE_TYPE_REQUEST) {
        this.fail(`unexpected ttrpc message type ${item.type} on stream ${item.streamId} of a server conn`);
        return;
      }
      if (isOversized(item)) {
        this.replyStatus(
          item.streamId,
          GRPC_RESOURCE_EXHAUSTED,
          `message length ${item.oversizedBytes} exceeds maximum`,
        );
        continue;
      }
      if (item.streamId % 2 === 0) {
        this.replyStatus(
          item.streamId,
          GRPC_INVALID_ARGUMENT,
          'StreamID must be odd for client initiated streams',
        );
        continue;
      }
      if (item.streamId <= this.lastStreamId) {
        this.replyStatus(
          item.streamId,
          GRPC_INVALID_ARGUMENT,
          'StreamID cannot be re-used and must increment',
        );
        continue;
      }
      this.lastStreamId = item.streamId;
      if (this.pending.size >= this.maxInFlight) {
        this.fail(`more than ${this.maxInFlight} requests in flight`);
        return;
      }
      this.track(this.serve(item.streamId, item.data));
    }
  }

  private replyStatus(streamId: number, code: number, message: string): void {
    this.track(this.reply(streamId, { status: { code, message } }));
  }

  private track(p: Promise<void>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private async serve(streamId: number, data: Buffer): Promise<void> {
    let req: WireRequest;
    try {
      req = decodeProto<WireRequest>('ttrpc.Request', data);
    } catch (err) {
      await this.reply(streamId, {
        status: { code: GRPC_INVALID_ARGUMENT, message: (err as Error).message },
      });
      return;
    }
    const service = this.services[req.service];
    const handler = service?.[req.method];
    if (!handler) {
      const message = service ? `method ${req.method}` : `service ${req.service}`;
      await this.reply(streamId, { status: { code: GRPC_UNIMPLEMENTED, message } });
      return;
    }
    const call: TtrpcCall = {
      service: req.service,
      method: req.method,
      payload: Buffer.from(req.payload),
      timeoutMs: req.timeoutNano > 0 ? req.timeoutNano / 1e6 : undefined,
      metadata: Object.fromEntries(req.metadata.map((kv) => [kv.key.toLowerCase(), kv.value])),
      streamId,
    };
    let outcome: TtrpcReply;
    try {
      outcome = await handler(call);
    } catch (err) {
      const code = err instanceof NriProtocolError && err.status !== undefined ? err.status : GRPC_UNKNOWN;
      outcome = { status: { code, message: err instanceof Error ? err.message : String(err) } };
    }
    await this.reply(streamId, outcome);
  }

  private async reply(streamId: number, outcome: TtrpcReply): Promise<void> {
    if (this.ended || 'noReply' in outcome) return;
    const response =
      'status' in outcome
        ? { status: outcome.status }
        : outcome.payload && outcome.payload.length > 0
          ? { payload: outcome.payload }
          : {}; // success with an empty message encodes to zero bytes, as Go sends it
    try {
      const data = encodeProto('ttrpc.Response', response);
      await this.conn.write(encodeMessage({ streamId, type: MESSAGE_TYPE_RESPONSE, data }));
      if ('onSent' in outcome) outcome.onSent?.();
    } catch {
      // The trunk ended while replying, or the reply was too large: the peer's deadline handles it.
    }
  }

  private fail(message: string): void {
    this.ended = true;
    this.conn.closeTrunk(new NriProtocolError('ERR_NRI_PROTOCOL', message));
  }
}
