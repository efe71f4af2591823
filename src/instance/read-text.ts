/** Reading files of the node and of processes that may vanish while they are read. */
import { readFileSync } from 'node:fs';

/** The file's text, or '' when it is gone or unreadable: for a reader, an absent file says nothing. */
export function readTextOrEmpty(file: string, encoding: BufferEncoding = 'utf8'): string {
  try {
    return readFileSync(file, encoding);
  } catch {
    return '';
  }
}
