/**
 * A tar file of plain entries, as an OCI image layout archive needs (oci-layout, index.json,
 * blobs/sha256/<hex>): POSIX ustar headers, fixed owner and time. Written by hand rather than with a tar
 * library: regular files with names under 100 bytes are all it takes, and the worker image has no tar.
 */
import { type FileHandle, open } from 'node:fs/promises';

const BLOCK = 512;
/** The largest size an 11-digit octal size field holds. */
const MAX_ENTRY_BYTES = 8 ** 11 - 1;

export interface ArchiveEntry {
  name: string;
  size: number;
  /** The bytes, whole or streamed; a stream must yield exactly `size` bytes. */
  data: Buffer | AsyncIterable<Buffer>;
}

/** Writes `entries` to `file` (created 0600) as one tar. */
export async function writeTar(file: string, entries: Iterable<ArchiveEntry>): Promise<void> {
  const out = await open(file, 'wx', 0o600);
  try {
    for (const entry of entries) await writeEntry(out, entry);
    await out.write(Buffer.alloc(2 * BLOCK));
  } finally {
    await out.close();
  }
}

async function writeEntry(out: FileHandle, entry: ArchiveEntry): Promise<void> {
  await out.write(ustarHeader(entry.name, entry.size));
  let written = 0;
  const chunks = Buffer.isBuffer(entry.data) ? [entry.data] : entry.data;
  for await (const chunk of chunks) {
    await out.write(chunk);
    written += chunk.length;
  }
  if (written !== entry.size)
    throw new Error(`${entry.name}: ${written} bytes read where its descriptor says ${entry.size}`);
  const pad = (BLOCK - (written % BLOCK)) % BLOCK;
  if (pad > 0) await out.write(Buffer.alloc(pad));
}

export function ustarHeader(name: string, size: number): Buffer {
  if (Buffer.byteLength(name) >= 100) throw new Error(`tar entry name too long: ${name}`);
  if (size > MAX_ENTRY_BYTES) throw new Error(`${name}: ${size} bytes is more than a ustar entry holds`);
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 'utf8');
  h.write('0000644\0', 100, 'ascii');
  h.write('0000000\0', 108, 'ascii');
  h.write('0000000\0', 116, 'ascii');
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  h.write('00000000000\0', 136, 'ascii');
  h.write('        ', 148, 'ascii'); // the checksum counts its own field as spaces
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}
