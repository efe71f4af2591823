/**
 * An output the CLI cannot write is bad usage: the report layer's OutputPathError becomes a UsageError,
 * one line that starts with the flag or variable that named the path.
 */
import { OutputPathError } from '../report/output-file.js';
import { UsageError } from './errors.js';

export async function orUsageError<T>(
  work: () => Promise<T>,
  sourceOf: (path: string) => string,
): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof OutputPathError) throw new UsageError(`${sourceOf(e.path)}: ${e.message}`);
    throw e;
  }
}
