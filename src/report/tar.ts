/**
 * Reads the regular files of a tar archive, gzipped or not, into memory. Enough of the format for what
 * Sonobuoy and GNU tar write: ustar headers with their name prefix, GNU long names ('L') and pax extended
 * headers ('x', for the path). Results tarballs are a few megabytes, so no streaming. Pure: bytes in.
 */
import { gunzipSync } from 'node:zlib';

export interface TarFile {
  path: string;
  data: Buffer;
}

export class TarError extends Error {
  readonly code = 'ERR_TAR';
  override readonly name = 'TarError';
}

const BLOCK = 512;

export function isGzip(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** A tar archive has "ustar" at offset 257 of its first header (GNU and POSIX alike). */
export function isTar(bytes: Buffer): boolean {
  return bytes.length >= BLOCK && bytes.toString('latin1', 257, 262) === 'ustar';
}

export function readTar(archive: Buffer): TarFile[] {
  let bytes = archive;
  if (isGzip(archive)) {
    try {
      bytes = gunzipSync(archive);
    } catch (e) {
      throw new TarError(`not a readable gzip stream (${(e as Error).message})`);
    }
  }
  if (!isTar(bytes)) throw new TarError('not a tar archive');
  const files: TarFile[] = [];
  let longName: string | undefined;
  for (let at = 0; at + BLOCK <= bytes.length; ) {
    const header = bytes.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    const size = octal(header.subarray(124, 136));
    const type = String.fromCharCode(header[156] ?? 0);
    const data = bytes.subarray(at + BLOCK, at + BLOCK + size);
    if (data.length < size) throw new TarError('the archive ends inside a file');
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L') longName = cString(data);
    else if (type === 'x') longName = paxPath(data) ?? longName;
    else {
      const path = longName ?? headerPath(header);
      longName = undefined;
      // '0' and NUL are regular files; directories, links and devices carry nothing to read.
      if (type === '0' || type === '\0') files.push({ path: path.replace(/^\.\//, ''), data });
    }
  }
  return files;
}

function headerPath(header: Buffer): string {
  const name = cString(header.subarray(0, 100));
  const prefix = cString(header.subarray(345, 500));
  return prefix ? `${prefix}/${name}` : name;
}

function cString(b: Buffer): string {
  const end = b.indexOf(0);
  return b.toString('utf8', 0, end === -1 ? b.length : end);
}

function octal(field: Buffer): number {
  const text = cString(field).trim();
  const n = text === '' ? 0 : Number.parseInt(text, 8);
  if (!Number.isFinite(n)) throw new TarError('a header has no readable size');
  return n;
}

/** A pax record is "<length> <key>=<value>\n"; only the path matters here. */
function paxPath(data: Buffer): string | undefined {
  for (const record of data.toString('utf8').split('\n')) {
    const m = /^\d+ path=(.*)$/s.exec(record);
    if (m) return m[1];
  }
  return undefined;
}
