/**
 * Reading containerd's own containers and tasks for a verdict. Tasks/List asks every shim for its task's
 * state, so on a loaded node with many shims one listing can take seconds. A probe that took a failed read
 * for "no records" would be wrong both ways: a trial's baseline without an earlier trial's leak blames that
 * leak on this trial (a FAIL the tool made), and a look without the trial's own leak passes it.
 */
import type { ContainerdSession, NativeRecords } from '../../cri/containerd-native.js';
import { errorMessage } from '../core/errors.js';
import { sleep } from '../core/waits.js';

/** One listing's deadline: a few times the slowest seen at load 11 on 2 cores with 20 shims (1.3 s). */
const ATTEMPT_MS = 5_000;
/** How long to keep asking before the read counts as failed (a runtime wedged, not slow). */
export const RECORDS_WITHIN_MS = 20_000;
const RETRY_PAUSE_MS = 200;

/** containerd's records could not be read: whatever they would have decided is left undecided. */
export class RecordsUnreadError extends Error {
  override readonly name = 'RecordsUnreadError';
}

/**
 * containerd's containers and tasks (namespace k8s.io), asked for again while a listing fails. Resolves
 * undefined only where there are none to read: no endpoint, or one that does not serve containerd's API
 * (CRI-O). Rejects with RecordsUnreadError, naming the last failure, when no listing answered within
 * `withinMs`.
 */
export async function readContainerdRecords(
  endpoint: string | undefined,
  opts: { withinMs?: number } = {},
): Promise<NativeRecords | undefined> {
  return readContainerd(endpoint, (s) => s.list(), opts);
}

/**
 * A part of containerd's records, read as readContainerdRecords reads both: `list` asks the session for
 * it, as `(s) => s.containers()` (no shim is asked) or `(s) => s.tasks()` (every shim is).
 */
export async function readContainerd<T>(
  endpoint: string | undefined,
  list: (session: ContainerdSession) => Promise<T | undefined>,
  opts: { withinMs?: number } = {},
): Promise<T | undefined> {
  const { withContainerdSession } = await native();
  return readAgainWhileFailing(endpoint, opts.withinMs, (at, o) => withContainerdSession(at, o, list));
}

/** Loaded on use: suites import the modules that read, and grpc would slow down `list` and `--help`. */
function native() {
  return import('../../cri/containerd-native.js');
}

/**
 * Not `poll`: its last look comes at the deadline, where a call would get a deadline of a millisecond or
 * two and fail for that alone, hiding the failure the earlier reads met. This stops before such a read.
 */
async function readAgainWhileFailing<T>(
  endpoint: string | undefined,
  withinMs = RECORDS_WITHIN_MS,
  list: (endpoint: string, opts: { deadlineMs: number }) => Promise<T | undefined>,
): Promise<T | undefined> {
  if (!endpoint) return undefined;
  const endAt = Date.now() + withinMs;
  for (let attempt = 1; ; attempt++) {
    const leftMs = endAt - Date.now();
    try {
      return await list(endpoint, { deadlineMs: Math.max(1, Math.min(ATTEMPT_MS, leftMs)) });
    } catch (e) {
      if (Date.now() + RETRY_PAUSE_MS >= endAt) {
        throw new RecordsUnreadError(
          `could not read containerd's own containers and tasks in ${attempt} attempt(s) within ${withinMs} ms, so what the runtime still keeps cannot be told (last: ${errorMessage(e)})`,
        );
      }
      await sleep(RETRY_PAUSE_MS);
    }
  }
}
