/**
 * How a CRI reply reads in a failure message. One wording for every suite, so a reader of two failures can
 * compare them: the status, the gRPC code number (runtimes differ in it), the latency and the runtime's text.
 */
import { type CallResult, shortId } from '../../src/harness/face.js';

/** "OK in 12 ms", "OK 3f2a9c1d0b7e4 in 12 ms" when the reply is an id, "UNKNOWN (2) in 15 ms: plugin says no". */
export function describeReply(r: CallResult<unknown>): string {
  const ms = Math.round(r.latencyMs);
  if (!r.ok) return `${r.code} (${r.codeNumber}) in ${ms} ms: ${r.message}`;
  return typeof r.value === 'string' ? `OK ${shortId(r.value)} in ${ms} ms` : `OK in ${ms} ms`;
}

/**
 * Whether a call ended because its own deadline passed. grpc-go servers reset the stream as their copy
 * of the deadline passes, so the client can read CANCELLED just as its own timer fires: the same ending.
 */
export function endedAtDeadline(r: CallResult<unknown>, deadlineMs: number): boolean {
  if (r.ok) return false;
  return r.code === 'DEADLINE_EXCEEDED' || (r.code === 'CANCELLED' && r.latencyMs >= deadlineMs);
}

/** "exit 1, stderr: no such file" — an ExecSync's outcome, output cut to 200 characters each. */
export function describeExec(r: { exitCode: number; stdout: Buffer; stderr: Buffer }): string {
  const text = (b: Buffer) => {
    const s = b.toString('utf8').trim();
    return s.length > 200 ? `${s.slice(0, 200)}…` : s;
  };
  const parts = [`exit ${r.exitCode}`];
  if (r.stdout.length > 0) parts.push(`stdout: ${text(r.stdout)}`);
  if (r.stderr.length > 0) parts.push(`stderr: ${text(r.stderr)}`);
  return parts.join(', ');
}
