/**
 * The NRI connection multiplexer over one stream socket (the "trunk").
 *
 * Contract:
 * - Logical conns are opened locally only; nothing goes on the wire. ConnID 0 is reserved.
 * - Frames for conns that are not open are dropped silently, as the Go mux does.
 * - Writes are serialized on the trunk; one message goes out as one frame when its total size is at most
 *   4096 bytes, else as exactly two frames [first 4096][rest] back to back, the pattern Go's ttrpc
 *   produces and the only one a Go reader handles.
 * - Any read error, protocol error or EOF closes the trunk and every conn. Close is idempotent: the
 *   first cause sticks and every conn ends with it.
 */
import type { Socket } from 'node:net';
import { NriProtocolError } from './errors.js';
import { encodeFrame, FrameDecoder } from './frame-decoder.js';

/** The conn on which the plugin serves `nri.pkg.api.v1alpha1.Plugin`. */
export const PLUGIN_SERVICE_CONN = 1;
/** The conn on which the runtime serves `nri.pkg.api.v1alpha1.Runtime`. */
export const RUNTIME_SERVICE_CONN = 2;
/** Go's ttrpc writes through a bufio.Writer of this size, so larger messages are split here. */
export const GO_WRITE_CHUNK_BYTES = 4096;

export interface MuxConn {
  readonly id: number;
  /** Sets the receiver of this conn's byte stream (one receiver; frames before it are dropped). */
  onData(cb: (chunk: Buffer) => void): void;
  /** Called once when the trunk ends, with the first cause; at once if it already ended. */
  onClose(cb: (cause: Error) => void): void;
  /** Writes one whole upper-layer message; resolves when the socket accepted it. */
  write(message: Uint8Array): Promise<void>;
  /** Closes the whole trunk (there is no per-conn close on the wire). */
  closeTrunk(cause?: Error): void;
}

/** Splits one message into the frames Go would write for it. */
export function splitLikeGo(connId: number, message: Uint8Array): Buffer[] {
  if (message.length <= GO_WRITE_CHUNK_BYTES) return [encodeFrame(connId, message)];
  return [
    encodeFrame(connId, message.subarray(0, GO_WRITE_CHUNK_BYTES)),
    encodeFrame(connId, message.subarray(GO_WRITE_CHUNK_BYTES)),
  ];
}

export class Mux {
  private readonly decoder = new FrameDecoder();
  private readonly conns = new Map<number, Conn>();
  private cause: Error | undefined;
  private ended = false;
  private resolveClosed: (cause: Error | undefined) => void = () => {};
  /** Settles when the trunk ends: undefined when closed locally without a cause, else the cause. */
  readonly closed: Promise<Error | undefined>;

  constructor(private readonly socket: Socket) {
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    socket.on('data', (chunk: Buffer) => this.onSocketData(chunk));
    socket.on('error', (err) =>
      this.close(new NriProtocolError('ERR_NRI_PEER_CLOSED', err.message, { cause: err })),
    );
    socket.on('end', () =>
      this.close(new NriProtocolError('ERR_NRI_PEER_CLOSED', 'connection closed by peer (EOF)')),
    );
    socket.on('close', () => this.close(new NriProtocolError('ERR_NRI_PEER_CLOSED', 'socket closed')));
  }

  get isClosed(): boolean {
    return this.ended;
  }

  /** Returns the logical conn `id`, creating it on first use. Throws for 0 and after close. */
  open(id: number): MuxConn {
    if (id <= 0 || !Number.isInteger(id) || id > 0xffffffff)
      throw new RangeError(`invalid mux conn id ${id}`);
    const existing = this.conns.get(id);
    if (existing) return existing;
    const conn = new Conn(id, this);
    this.conns.set(id, conn);
    if (this.ended) conn.end(this.endCause());
    return conn;
  }

  /** Ends the trunk and every conn. Idempotent; the first call's cause is kept. */
  close(cause?: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.cause = cause;
    const reason = this.endCause();
    for (const conn of this.conns.values()) conn.end(reason);
    this.socket.destroy();
    this.resolveClosed(cause);
  }

  /** Writes one message of `connId` as Go would frame it. */
  write(connId: number, message: Uint8Array): Promise<void> {
    if (this.ended) return Promise.reject(this.endCause());
    const frames = splitLikeGo(connId, message);
    // One socket write per message keeps its frames back to back; Node orders writes, so messages
    // never interleave.
    const bytes = frames.length === 1 ? (frames[0] as Buffer) : Buffer.concat(frames);
    return new Promise((resolve, reject) => {
      this.socket.write(bytes, (err) => (err ? reject(err) : resolve()));
    });
  }

  private endCause(): Error {
    return this.cause ?? new NriProtocolError('ERR_NRI_CLOSED', 'connection closed');
  }

  private onSocketData(chunk: Buffer): void {
    if (this.ended) return;
    let frames: ReturnType<FrameDecoder['push']>;
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      this.close(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    for (const frame of frames) {
      if (this.ended) return;
      this.conns.get(frame.connId)?.deliver(frame.payload);
    }
  }
}

class Conn implements MuxConn {
  private receiver: ((chunk: Buffer) => void) | undefined;
  private closeListeners: ((cause: Error) => void)[] = [];
  private endedWith: Error | undefined;

  constructor(
    readonly id: number,
    private readonly mux: Mux,
  ) {}

  onData(cb: (chunk: Buffer) => void): void {
    this.receiver = cb;
  }

  onClose(cb: (cause: Error) => void): void {
    if (this.endedWith) cb(this.endedWith);
    else this.closeListeners.push(cb);
  }

  write(message: Uint8Array): Promise<void> {
    return this.mux.write(this.id, message);
  }

  closeTrunk(cause?: Error): void {
    this.mux.close(cause);
  }

  deliver(chunk: Buffer): void {
    if (chunk.length > 0) this.receiver?.(chunk);
  }

  end(cause: Error): void {
    if (this.endedWith) return;
    this.endedWith = cause;
    const listeners = this.closeListeners;
    this.closeListeners = [];
    for (const cb of listeners) cb(cause);
  }
}
