/**
 * What a test run changed in the working tree, for `npm test` (scripts/test.mjs) to fail on: a test that
 * rewrites a tracked file leaves a fresh clone dirty. A snapshot holds each file git reports as changed or
 * untracked (ignored files are not), with its content hash; a file a developer changed before the run is
 * in both snapshots and counts only if the run changed it again.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Path (from the repository's top) -> git's two-letter status and the content's hash. */
export type TreeSnapshot = ReadonlyMap<string, string>;

/** The snapshot of the work tree `dir` is in; undefined outside one (an unpacked package). */
export function snapshotTree(dir: string): TreeSnapshot | undefined {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  let top: string;
  let status: string;
  try {
    top = git('rev-parse', '--show-toplevel').trim();
    status = git('status', '--porcelain=v1', '-z', '--untracked-files=all');
  } catch {
    return undefined;
  }
  const snapshot = new Map<string, string>();
  const records = status.split('\0');
  for (let i = 0; i < records.length; i++) {
    const record = records[i] ?? '';
    if (record.length < 4) continue;
    const xy = record.slice(0, 2);
    const path = record.slice(3);
    // A rename or copy is followed by a record naming its source, which is not a file of its own.
    if (xy.startsWith('R') || xy.startsWith('C')) i++;
    snapshot.set(path, `${xy} ${contentHash(join(top, path))}`);
  }
  return snapshot;
}

function contentHash(path: string): string {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return 'unreadable or gone';
  }
}

/** The paths whose status or content differs between the snapshots, sorted. */
export function treeChanges(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => before.get(p) !== after.get(p)).sort();
}
