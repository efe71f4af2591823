import { expect } from 'chai';
import { identicalReplyViolation } from './reservation.js';

const failure = (code: string, latencyMs: number, message = 'context deadline exceeded') =>
  ({ ok: false, code, codeNumber: code === 'CANCELLED' ? 1 : 4, message, latencyMs }) as const;

describe('names: judging the reply to an identical request', () => {
  it('accepts the holder id, and names a second object as the violation', () => {
    expect(
      identicalReplyViolation({ ok: true, value: 'a'.repeat(64), latencyMs: 3 }, 'a'.repeat(64)),
    ).to.equal('');
    expect(
      identicalReplyViolation({ ok: true, value: 'b'.repeat(64), latencyMs: 3 }, 'a'.repeat(64)),
    ).to.match(/built a second one/);
  });

  it('accepts a request in flight that was held until its deadline, however the expiry arrived', () => {
    expect(identicalReplyViolation(failure('DEADLINE_EXCEEDED', 2_001), 'a', 2_000)).to.equal('');
    // grpc-go resets the stream as its copy of the deadline passes: CANCELLED at the deadline.
    expect(identicalReplyViolation(failure('CANCELLED', 2_000, 'Call cancelled'), 'a', 2_000)).to.equal('');
  });

  it('does not take a cancel before the deadline, or a deadline after the holder was built, for a held request', () => {
    expect(identicalReplyViolation(failure('CANCELLED', 1_200, 'Call cancelled'), 'a', 2_000)).to.match(
      /does not name the reservation/,
    );
    expect(identicalReplyViolation(failure('DEADLINE_EXCEEDED', 2_001), 'a')).to.match(
      /does not name the reservation/,
    );
  });

  it('accepts an error that names the reservation', () => {
    const reserved = failure(
      'UNKNOWN',
      5,
      'failed to reserve sandbox name "x": name "x" is reserved for "abc"',
    );
    expect(identicalReplyViolation(reserved, 'a')).to.equal('');
  });
});
