/**
 * What a path that should be a unix socket is instead. Its own module, free of grpc, so that the NRI
 * paths of the harness name a wrong --nri-socket in the words a wrong --runtime-endpoint gets.
 */
import type { Stats } from 'node:fs';

/** 'a directory', 'a regular file' or 'a special file'; undefined when `stats` is a socket's. */
export function nonSocketKind(stats: Stats): string | undefined {
  if (stats.isSocket()) return undefined;
  return stats.isDirectory() ? 'a directory' : stats.isFile() ? 'a regular file' : 'a special file';
}
