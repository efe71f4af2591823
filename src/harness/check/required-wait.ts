/** The waits a check's calls must make by contract, which the benchmarks set its wall time against. */
import type { CallOpts } from './context.js';

/**
 * How long of a call's time the contract makes it wait: a call meant to time out waits to its deadline, to
 * the runtime's own copy of it when the client cancels late, or to the check's deliberate cancel (the
 * benchmarks compare wall time against these waits). A runtime whose own copy of the deadline fires first
 * answers CANCELLED at the deadline (grpc-go), which is the same wait. 0 for any other call.
 */
export function requiredWaitOf(
  opts: CallOpts,
  deadlineMs: number,
  latencyMs: number,
  code: string,
  checkSignal: AbortSignal,
): number {
  // A call the client cancels late waits past its deadline on purpose; the branch below counts all of it.
  const atDeadline = code === 'CANCELLED' && opts.cancelLateByMs === undefined && latencyMs >= deadlineMs;
  if (code === 'DEADLINE_EXCEEDED' || atDeadline) return Math.min(latencyMs, deadlineMs);
  if (opts.cancelLateByMs !== undefined && latencyMs >= deadlineMs) return latencyMs;
  if (code === 'CANCELLED' && opts.signal?.aborted && !checkSignal.aborted) return latencyMs;
  return 0;
}
