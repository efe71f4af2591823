/** Chunks up to this size are copied into a shared spare buffer instead of being kept one by one. */
const SMALL_CHUNK_BYTES = 512;
const SPARE_BYTES = 16 * 1024;

/**
 * A FIFO of received bytes kept as the chunks they arrived in, so that a large frame assembled from
 * many socket reads is copied once (when it is taken), not once per read. Small chunks are packed
 * together, so a peer sending a 4 MiB message as 1-byte frames costs 4 MiB, not millions of objects.
 */
export class ByteQueue {
  private chunks: Buffer[] = [];
  private head = 0; // bytes already consumed from chunks[0]
  private total = 0;
  private spare: Buffer | undefined; // backing store of the last chunk while it is a packed view
  private spareUsed = 0;

  get length(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.total += chunk.length;
    if (chunk.length > SMALL_CHUNK_BYTES) {
      this.spare = undefined;
      this.chunks.push(chunk);
      return;
    }
    if (!this.spare || this.spareUsed + chunk.length > this.spare.length) {
      this.spare = Buffer.allocUnsafe(SPARE_BYTES);
      this.spareUsed = 0;
      this.chunks.push(this.spare.subarray(0, 0));
    }
    chunk.copy(this.spare, this.spareUsed);
    this.spareUsed += chunk.length;
    this.chunks[this.chunks.length - 1] = this.spare.subarray(0, this.spareUsed);
  }

  /** Reads a big-endian uint32 at `offset` without consuming. Requires offset + 4 <= length. */
  readUInt32BE(offset: number): number {
    return this.peek(offset + 4).readUInt32BE(offset);
  }

  /** Reads one byte at `offset` without consuming. */
  readUInt8(offset: number): number {
    return this.peek(offset + 1).readUInt8(offset);
  }

  /** Removes and returns the first `n` bytes (n <= length). */
  take(n: number): Buffer {
    const out = this.peek(n);
    this.skip(n);
    return out;
  }

  /** Drops up to `n` bytes from the front; returns how many were dropped. */
  skip(n: number): number {
    let left = Math.min(n, this.total);
    const dropped = left;
    while (left > 0) {
      const first = this.chunks[0];
      if (first === undefined) break;
      const avail = first.length - this.head;
      if (avail <= left) {
        this.chunks.shift();
        if (this.chunks.length === 0) this.spare = undefined; // the packed view is gone: start afresh
        this.head = 0;
        left -= avail;
      } else {
        this.head += left;
        left = 0;
      }
    }
    this.total -= dropped;
    return dropped;
  }

  /** The first `n` bytes (n <= length) as one buffer; copies only when they span chunks. */
  private peek(n: number): Buffer {
    const first = this.chunks[0];
    if (first !== undefined && first.length - this.head >= n) return first.subarray(this.head, this.head + n);
    const out = Buffer.allocUnsafe(n);
    let written = 0;
    let skip = this.head;
    for (const c of this.chunks) {
      if (written >= n) break;
      written += c.copy(out, written, skip, Math.min(c.length, skip + n - written));
      skip = 0;
    }
    return out;
  }
}
