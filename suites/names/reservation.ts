/**
 * What an identical request may get while (or after) another request holds the name: the holder's id, an
 * error that names the reservation, or (while the holder is still being built) its own deadline.
 * The gRPC code differs between runtimes (2, 5 or 9 for the same condition), so the condition is matched
 * by the message and the code is only recorded.
 */

import { type CallResult, type CheckContext, shortId } from '../../src/harness/face.js';
import { idsIn, namesReservation } from '../common/census.js';
import { describeReply, endedAtDeadline } from '../common/replies.js';

/** The reply of a create call, reduced to the id it returned. */
export type IdReply = CallResult<string>;

export function containerReply(r: CallResult<{ containerId: string }>): IdReply {
  return r.ok ? { ...r, value: r.value.containerId } : r;
}

/**
 * Judges the reply to an identical request while `holderId` holds the name. Returns the violation, or ''.
 * `inFlightDeadlineMs`: the request was in flight with the holder, with this deadline, so being held until
 * that deadline is allowed.
 */
export function identicalReplyViolation(
  reply: IdReply,
  holderId: string,
  inFlightDeadlineMs?: number,
): string {
  if (reply.ok) {
    return reply.value === holderId
      ? ''
      : `it built a second one, ${shortId(reply.value)}, beside ${shortId(holderId)}`;
  }
  if (namesReservation(reply.message)) return '';
  if (inFlightDeadlineMs !== undefined && endedAtDeadline(reply, inFlightDeadlineMs)) return '';
  return `it failed with an error that does not name the reservation: ${describeReply(reply)}`;
}

/** Records how a runtime answers an identical request (NAME-08, NAME-01). */
export function observeReply(t: CheckContext, prefix: string, reply: IdReply, holderId: string): void {
  t.observe(`${prefix}.latencyMs`, Math.round(reply.latencyMs));
  if (reply.ok) {
    t.observe(`${prefix}.outcome`, reply.value === holderId ? 'OK, the holder id' : 'OK, another id');
    return;
  }
  const named = idsIn(reply.message);
  t.observe(`${prefix}.outcome`, namesReservation(reply.message) ? 'reservation error' : 'other error');
  t.observe(`${prefix}.code`, `${reply.code} (${reply.codeNumber})`);
  t.observe(`${prefix}.message`, reply.message.slice(0, 300));
  t.observe(
    `${prefix}.namesHolder`,
    named.length === 0
      ? 'no id in message'
      : named.includes(holderId)
        ? 'yes'
        : `no: ${named.map(shortId).join(', ')}`,
  );
}

/** What one variant of NAME-05/07 found: whether it tested anything, and the violation ('' if none). */
export interface Release {
  what: string;
  tested: boolean;
  problem: string;
}

/**
 * A create that fails for a non-timeout reason, then the valid request with the same metadata at once.
 * When the runtime accepted the request meant to fail, nothing was tested: that is recorded, and the
 * valid request is not sent (it would meet the name).
 */
export async function releasedAfterFailure(
  t: CheckContext,
  what: string,
  failing: () => Promise<IdReply>,
  valid: () => Promise<IdReply>,
): Promise<Release> {
  t.step(`${what}: a failing request, then the valid one with the same metadata`);
  const failed = await failing();
  t.observe(
    `${what}.failure`,
    failed.ok ? 'accepted (inconclusive)' : `${failed.code} (${failed.codeNumber})`,
  );
  if (failed.ok) return { what, tested: false, problem: '' };
  const retry = await valid();
  const problem = retry.ok
    ? ''
    : `${what}: the failure (${failed.code}) kept the name: the valid retry got ${describeReply(retry)}`;
  return { what, tested: true, problem };
}

/**
 * Fails with every violation; skips when no variant could make its request fail (the runtime accepted
 * each one), since then the check tested nothing.
 */
export function judgeReleases(t: CheckContext, releases: readonly Release[], clause: string): void {
  if (!releases.some((r) => r.tested)) {
    t.skip(
      `no variant tested anything: the runtime accepted every request meant to fail (${releases.map((r) => r.what).join(', ')})`,
    );
  }
  const found = releases.map((r) => r.problem).filter((p) => p !== '');
  t.expect(found.length === 0, found.join('; '), clause);
}
