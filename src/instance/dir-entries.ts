/** Looking into directories of the node that may vanish while they are read (a removal is under way). */
import { readdirSync, statSync } from 'node:fs';

/** The names in `dir`, or none when it is gone or unreadable. */
export function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Whether `path` is a directory now (following links); false when it is gone. */
export function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
