/**
 * The ids a final sweep could not finish with: a process of the run's own that the CRI no longer lists
 * stayed running, because the runtime's records could not be read to tell a lost process from one it still
 * keeps, or because the process outlived SIGKILL (uninterruptible sleep), or the runtime did not answer at
 * all. The run's pod-log folder, which holds its own ids while it runs, goes at its end, and with it all a
 * later `cleanup` could have found those processes by. So such ids are kept here, a file per run, until a
 * `cleanup` stops their processes or finds them gone. Only ids go in: a process is found again by the id it
 * names, so a reused pid is never taken for the lost one.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type IdsFile, idsFileHeader, idsFileIsOf, readIdsFile } from '../core/own-ids.js';
import { runFileName } from './pod-logs.js';

/** As root on the node, beside the pod logs on tmpfs: a reboot ends every process they could name. */
export const LOST_IDS_ROOT_AS_ROOT = '/run/cri-conform/lost-ids';
export const LOST_IDS_ROOT =
  process.getuid?.() === 0 ? LOST_IDS_ROOT_AS_ROOT : join(tmpdir(), 'cri-conform-lost-ids');

/** The suffix of a file still being written, renamed into place once whole. */
const WRITING = '.writing';

/** The file that keeps a run's lost ids. */
export function lostIdsFile(runId: string, root = LOST_IDS_ROOT): string {
  return join(root, runFileName(runId));
}

/**
 * Keeps `ids` of `endpoint`'s objects as the run's lost ids, in place of what was kept before; with none,
 * the run's file goes. Returns the problem as text when the file could not be written or removed (never
 * throws).
 */
export function keepLostIds(
  runId: string,
  ids: readonly string[],
  endpoint: string,
  root = LOST_IDS_ROOT,
): string | undefined {
  const file = lostIdsFile(runId, root);
  try {
    if (ids.length === 0) rmSync(file, { force: true });
    else {
      mkdirSync(root, { recursive: true });
      // Whole or not at all: a cleanup killed mid-write leaves the ids kept before, never an empty file.
      const writing = `${file}${WRITING}`;
      writeFileSync(writing, `${idsFileHeader(endpoint)}${[...new Set(ids)].join('\n')}\n`);
      renameSync(writing, file);
    }
    return undefined;
  } catch (e) {
    try {
      rmSync(`${file}${WRITING}`, { force: true });
    } catch {
      // The problem below says what went wrong; a half-written file is skipped by every reader.
    }
    return `lost ids ${file}: ${e instanceof Error ? e.message : String(e)}`;
  }
}

/**
 * The kept lost ids by run (its file name), with the endpoint they are of; of one run only with `runId`.
 * Lines that are no full id are skipped.
 */
export function keptLostIds(runId?: string, root = LOST_IDS_ROOT): Map<string, IdsFile> {
  let names: string[];
  try {
    names = runId === undefined ? readdirSync(root) : [runFileName(runId)];
  } catch {
    return new Map();
  }
  const kept = new Map<string, IdsFile>();
  for (const name of names.filter((n) => !n.endsWith(WRITING))) {
    try {
      const file = readIdsFile(readFileSync(join(root, name), 'utf8'));
      if (file.ids.length > 0) kept.set(name, file);
    } catch {
      // Not kept (any more): nothing to stop for that run.
    }
  }
  return kept;
}

/**
 * Lets go of the kept ids of `endpoint`'s objects that are gone now (removed through the runtime's own
 * API, which the CRI did not list): no process can name them any more, so no later cleanup needs them. In
 * every run's file, whichever run kept them: an id names one object. Returns the problems as text.
 */
export function forgetLostIds(gone: readonly string[], endpoint: string, root = LOST_IDS_ROOT): string[] {
  const drop = new Set(gone);
  const problems: string[] = [];
  for (const [run, file] of keptLostIds(undefined, root)) {
    if (!idsFileIsOf(file, endpoint) || !file.ids.some((id) => drop.has(id))) continue;
    const rest = file.ids.filter((id) => !drop.has(id));
    const problem = keepLostIds(run, rest, file.endpoint ?? endpoint, root);
    if (problem) problems.push(problem);
  }
  return problems;
}
