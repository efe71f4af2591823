/**
 * Pure push parser for NRI mux frames: no socket, no timers. Feed it whatever the socket delivered and
 * it returns the complete frames, in order.
 */
import { ByteQueue } from './byte-queue.js';
import { NriProtocolError } from './errors.js';

/** Mux frame header: 4-byte big-endian ConnID, then 4-byte big-endian payload length. */
export const MUX_HEADER_BYTES = 8;
/** Largest frame we accept: NRI v0.6.1 writers may send up to 1 << 24 bytes in one frame. */
export const MUX_MAX_FRAME_BYTES = 16 * 1024 * 1024;

export interface MuxFrame {
  connId: number;
  payload: Buffer;
}

export class FrameDecoder {
  private readonly queue = new ByteQueue();
  private failure: NriProtocolError | undefined;

  constructor(private readonly maxFrameBytes = MUX_MAX_FRAME_BYTES) {}

  /** Bytes held for an incomplete frame. */
  get bufferedBytes(): number {
    return this.queue.length;
  }

  /**
   * Appends `chunk` and returns every frame it completes. Throws ERR_NRI_FRAME_TOO_LARGE as soon as a
   * header announces more than the limit (before anything is allocated for it); after that the decoder
   * is broken and every push throws the same error.
   */
  push(chunk: Buffer): MuxFrame[] {
    if (this.failure) throw this.failure;
    this.queue.push(chunk);
    const frames: MuxFrame[] = [];
    while (this.queue.length >= MUX_HEADER_BYTES) {
      const length = this.queue.readUInt32BE(4);
      if (length > this.maxFrameBytes) {
        this.failure = new NriProtocolError(
          'ERR_NRI_FRAME_TOO_LARGE',
          `mux frame of ${length} bytes exceeds the limit of ${this.maxFrameBytes}`,
        );
        throw this.failure;
      }
      if (this.queue.length < MUX_HEADER_BYTES + length) break;
      const connId = this.queue.readUInt32BE(0);
      this.queue.skip(MUX_HEADER_BYTES);
      frames.push({ connId, payload: this.queue.take(length) });
    }
    return frames;
  }
}

/** Encodes one mux frame. */
export function encodeFrame(connId: number, payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(MUX_HEADER_BYTES + payload.length);
  out.writeUInt32BE(connId, 0);
  out.writeUInt32BE(payload.length, 4);
  out.set(payload, MUX_HEADER_BYTES);
  return out;
}
