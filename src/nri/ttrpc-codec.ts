/**
 * ttrpc message framing on one logical conn's byte stream: a pure push decoder and an encoder.
 */
import { ByteQueue } from './byte-queue.js';
import { NriProtocolError } from './errors.js';

/** ttrpc header: 4-byte BE data length (bytes after the header), 4-byte BE stream ID, 1-byte type, 1-byte flags. */
export const TTRPC_HEADER_BYTES = 10;
/** Largest message body ttrpc accepts (4 MiB). */
export const TTRPC_MAX_DATA_BYTES = 4 * 1024 * 1024;

export const MESSAGE_TYPE_REQUEST = 1;
export const MESSAGE_TYPE_RESPONSE = 2;
export const MESSAGE_TYPE_DATA = 3;

export const FLAG_REMOTE_CLOSED = 0x01;
export const FLAG_REMOTE_OPEN = 0x02;
export const FLAG_NO_DATA = 0x04;

export interface TtrpcMessage {
  streamId: number;
  type: number;
  flags: number;
  data: Buffer;
}

/** A message whose body exceeded the limit: it was discarded whole; only its header is reported. */
export interface TtrpcOversized {
  streamId: number;
  type: number;
  flags: number;
  oversizedBytes: number;
}

export type DecodedItem = TtrpcMessage | TtrpcOversized;

export function isOversized(item: DecodedItem): item is TtrpcOversized {
  return 'oversizedBytes' in item;
}

export class MessageDecoder {
  private readonly queue = new ByteQueue();
  private discardLeft = 0;

  constructor(private readonly maxDataBytes = TTRPC_MAX_DATA_BYTES) {}

  /**
   * Appends `chunk` and returns every message it completes. An oversized message is reported as soon as
   * its header arrives; its body is then skipped as it streams in, never buffered.
   */
  push(chunk: Buffer): DecodedItem[] {
    this.queue.push(chunk);
    const out: DecodedItem[] = [];
    for (;;) {
      if (this.discardLeft > 0) {
        this.discardLeft -= this.queue.skip(this.discardLeft);
        if (this.discardLeft > 0) break;
      }
      if (this.queue.length < TTRPC_HEADER_BYTES) break;
      const length = this.queue.readUInt32BE(0);
      const streamId = this.queue.readUInt32BE(4);
      const type = this.queue.readUInt8(8);
      const flags = this.queue.readUInt8(9);
      if (length > this.maxDataBytes) {
        this.queue.skip(TTRPC_HEADER_BYTES);
        this.discardLeft = length;
        out.push({ streamId, type, flags, oversizedBytes: length });
        continue;
      }
      if (this.queue.length < TTRPC_HEADER_BYTES + length) break;
      this.queue.skip(TTRPC_HEADER_BYTES);
      out.push({ streamId, type, flags, data: this.queue.take(length) });
    }
    return out;
  }
}

/** Encodes one message. Throws ERR_NRI_MESSAGE_TOO_LARGE when the body exceeds 4 MiB. */
export function encodeMessage(m: {
  streamId: number;
  type: number;
  flags?: number;
  data: Uint8Array;
}): Buffer {
  if (m.data.length > TTRPC_MAX_DATA_BYTES) {
    throw new NriProtocolError(
      'ERR_NRI_MESSAGE_TOO_LARGE',
      `ttrpc message of ${m.data.length} bytes exceeds the limit of ${TTRPC_MAX_DATA_BYTES}`,
    );
  }
  const out = Buffer.allocUnsafe(TTRPC_HEADER_BYTES + m.data.length);
  out.writeUInt32BE(m.data.length, 0);
  out.writeUInt32BE(m.streamId, 4);
  out.writeUInt8(m.type, 8);
  out.writeUInt8(m.flags ?? 0, 9);
  out.set(m.data, TTRPC_HEADER_BYTES);
  return out;
}
