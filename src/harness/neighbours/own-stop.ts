/**
 * Whether a StopContainer or StopPodSandbox of the check's own that answered OK met a stop that was already
 * under way, judged from when the containers exited. Beside a kubelet only (disturbance.ts): without one the
 * runtime is the only other party, and what it did is for the check to judge.
 */
import { timeOfDay } from '../core/time-of-day.js';

/** How a StopContainer of the check's own went: see stopAnswered. */
export interface AnsweredStop {
  /** Wall-clock ms when the call went out. */
  sentAtMs: number;
  /** The grace the call gave (its timeout), in ms. */
  graceMs: number;
  latencyMs: number;
  /** The container's finishedAt after the call, in wall-clock ms; undefined when the status gave none. */
  finishedAtMs: number | undefined;
  /** The check says its workload ignores TERM: only the kill at the end of a grace ends it. */
  ignoresTerm: boolean;
}

/**
 * Its status's finishedAt before the call went out: the container had ended before the check asked, by
 * another client's stop or by itself, which beside a kubelet cannot be told apart. For a container the
 * check says ignores TERM, which only the kill at the end of a grace ends: an exit before this call's own
 * grace ran out means another stop was already under way (containerd then skips its own signal and waits
 * for the earlier stop's kill), unless the runtime cut the grace short, which beside a kubelet cannot be
 * told apart either. Without finishedAt, the reply's latency stands in for it: a TERM-ignoring container
 * whose stop answers well inside the grace. A container still running after the reply is no sign of
 * another client (no stop of anyone's left it running): that is the runtime's failure, for the check.
 */
export function stopBeforeOwn(
  stop: AnsweredStop,
  state: string,
): { action: 'stopped' | 'perhaps being stopped'; seenBy: string; at: Date } | undefined {
  if (state !== 'CONTAINER_EXITED') return undefined;
  const { sentAtMs, graceMs, finishedAtMs, latencyMs } = stop;
  const exited = exitedBefore(finishedAtMs, sentAtMs, 'its own StopContainer');
  if (exited) return exited;
  if (!stop.ignoresTerm) return undefined;
  const endedAtMs = finishedAtMs ?? sentAtMs + latencyMs;
  if (endedAtMs >= sentAtMs + graceMs) return undefined;
  const how =
    finishedAtMs === undefined
      ? `its own StopContainer answered in ${Math.round(latencyMs)} ms`
      : `it exited at ${timeOfDay(finishedAtMs)}, ${Math.round(finishedAtMs - sentAtMs)} ms after its own StopContainer went out`;
  const seenBy = `a container that ignores TERM ending before its own ${graceMs} ms grace ran out (${how}): another stop was already under way, or the runtime cut the grace short`;
  return { action: 'perhaps being stopped', seenBy, at: new Date(endedAtMs) };
}

/**
 * A container of the pod, live for the check when its own StopPodSandbox went out, whose status says it had
 * exited before that: a kubelet's StopPodSandbox stops the pod's containers first, and the pod reads
 * NOTREADY only after them, so this is the first sign of it; a listing right before the call can miss an
 * exit that comes while it is on its way. An exit after the call went out is no sign of anyone: the
 * check's own stop ends the container too.
 */
export function exitedBeforePodStop(
  finishedAtMs: number | undefined,
  sentAtMs: number,
): { action: 'stopped'; seenBy: string; at: Date } | undefined {
  return exitedBefore(finishedAtMs, sentAtMs, "its pod's own StopPodSandbox");
}

function exitedBefore(finishedAtMs: number | undefined, sentAtMs: number, call: string) {
  if (finishedAtMs === undefined || finishedAtMs >= sentAtMs) return undefined;
  const seenBy = `its status: it had exited at ${timeOfDay(finishedAtMs)}, before ${call} went out at ${timeOfDay(sentAtMs)}`;
  return { action: 'stopped' as const, seenBy, at: new Date(finishedAtMs) };
}
