/**
 * A unary ttrpc client on one mux conn.
 *
 * Contract:
 * - Stream IDs are 1, 3, 5, ... in call order; requests carry flags 0.
 * - `timeoutMs` is sent as timeout_nano and enforced locally (ERR_NRI_TIMEOUT); there is no cancel frame,
 *   so a late response is dropped. An AbortSignal rejects with ERR_NRI_ABORTED.
 * - A non-OK status rejects with ERR_NRI_TTRPC_STATUS carrying `status`; an empty response is an empty message.
 * - When the trunk ends every pending call rejects with the trunk's cause. A request or data message from
 *   the peer, or an undecodable response, ends the trunk with ERR_NRI_PROTOCOL.
 */
import { NriProtocolError } from './errors.js';
import { decodeProto, encodeProto, type WireResponse } from './messages.js';
import type { MuxConn } from './mux.js';
import {
  encodeMessage,
  isOversized,
  MESSAGE_TYPE_REQUEST,
  MESSAGE_TYPE_RESPONSE,
  MessageDecoder,
} from './ttrpc-codec.js';

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  metadata?: Record<string, string>;
}

interface Pending {
  method: string;
  resolve(payload: Buffer): void;
  reject(err: Error): void;
}

export class TtrpcClient {
  private readonly decoder = new MessageDecoder();
  private readonly pending = new Map<number, Pending>();
  private nextStreamId = 1;
  private endedWith: Error | undefined;

  constructor(private readonly conn: MuxConn) {
    conn.onData((chunk) => this.onData(chunk));
    conn.onClose((cause) => {
      this.endedWith = cause;
      for (const p of this.pending.values()) p.reject(cause);
      this.pending.clear();
    });
  }

  /** Calls `service`/`method` with an encoded request; resolves with the encoded reply (maybe empty). */
  call(service: string, method: string, payload: Uint8Array, opts: CallOptions = {}): Promise<Buffer> {
    if (this.endedWith) return Promise.reject(this.endedWith);
    if (opts.signal?.aborted) return Promise.reject(abortError(service, method));
    const streamId = this.nextStreamId;
    this.nextStreamId += 2;
    const request = {
      service,
      method,
      payload,
      timeoutNano: opts.timeoutMs === undefined ? 0 : Math.max(1, Math.round(opts.timeoutMs * 1e6)),
      metadata: Object.entries(opts.metadata ?? {}).map(([key, value]) => ({ key, value })),
    };
    let bytes: Buffer;
    try {
      bytes = encodeMessage({
        streamId,
        type: MESSAGE_TYPE_REQUEST,
        data: encodeProto('ttrpc.Request', request),
      });
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<Buffer>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => settle(abortError(service, method));
      const settle = (err: Error | undefined, value?: Buffer) => {
        if (!this.pending.delete(streamId)) return;
        if (timer) clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve(value ?? Buffer.alloc(0));
      };
      this.pending.set(streamId, { method, resolve: (v) => settle(undefined, v), reject: (e) => settle(e) });
      if (opts.timeoutMs !== undefined) {
        timer = setTimeout(
          () =>
            settle(
              new NriProtocolError('ERR_NRI_TIMEOUT', `${method}: no reply within ${opts.timeoutMs} ms`),
            ),
          opts.timeoutMs,
        );
      }
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.conn.write(bytes).catch((err: Error) => settle(err));
    });
  }

  private onData(chunk: Buffer): void {
    for (const item of this.decoder.push(chunk)) {
      if (this.endedWith) return;
      if (item.type !== MESSAGE_TYPE_RESPONSE) {
        this.fail(`unexpected ttrpc message type ${item.type} on stream ${item.streamId} of a client conn`);
        return;
      }
      const waiter = this.pending.get(item.streamId);
      if (!waiter) continue; // late reply to a call that timed out: Go logs and drops it too
      if (isOversized(item)) {
        waiter.reject(
          new NriProtocolError(
            'ERR_NRI_MESSAGE_TOO_LARGE',
            `response of ${item.oversizedBytes} bytes discarded`,
          ),
        );
        continue;
      }
      let res: WireResponse;
      try {
        res = decodeProto<WireResponse>('ttrpc.Response', item.data);
      } catch (err) {
        this.fail((err as Error).message);
        return;
      }
      if (res.status && res.status.code !== 0) {
        waiter.reject(
          new NriProtocolError(
            'ERR_NRI_TTRPC_STATUS',
            `${waiter.method}: code ${res.status.code}: ${res.status.message}`,
            {
              status: res.status.code,
            },
          ),
        );
      } else {
        waiter.resolve(Buffer.from(res.payload));
      }
    }
  }

  private fail(message: string): void {
    this.conn.closeTrunk(new NriProtocolError('ERR_NRI_PROTOCOL', message));
  }
}

function abortError(service: string, method: string): NriProtocolError {
  return new NriProtocolError('ERR_NRI_ABORTED', `${service}/${method}: aborted by the caller`);
}
