import { expect } from 'chai';
import type { RetryAttempt } from '../../src/harness/face.js';
import { buildsOfCutOffRetries, retryBuildsNamedIn } from './retry-builds.js';

const FIRST = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
const RETRY = '02ac5fc9053b3cd0d44efc86bad40e666e7804954d6ad00456e4974eb489e3f9';

const refused = (attempt: number, id: string): RetryAttempt => ({
  attempt,
  code: 'UNKNOWN',
  message: `failed to reserve sandbox name "p_ns_uid_0": name "p_ns_uid_0" is reserved for "${id}"`,
  latencyMs: 9,
});
const cutOff = (attempt: number): RetryAttempt => ({
  attempt,
  code: 'DEADLINE_EXCEEDED',
  message: 'Deadline exceeded after 3.815s',
  latencyMs: 3815,
});
const ok = (attempt: number): RetryAttempt => ({ attempt, code: 'OK', message: '', latencyMs: 1454 });

describe('builds of retries that timed out in turn', () => {
  it('names the first retry as the builder of the id refusals name after it (run-local, trial 36)', () => {
    const attempts = [cutOff(1), refused(2, RETRY), refused(3, RETRY), ok(4)];
    expect([...buildsOfCutOffRetries(attempts)]).to.deep.equal([[RETRY, 1]]);
  });

  it("tells a later retry's build from the first attempt's (run-local, trial 38)", () => {
    const attempts = [refused(1, FIRST), cutOff(2), refused(3, RETRY), ok(4)];
    expect([...buildsOfCutOffRetries(attempts)]).to.deep.equal([[RETRY, 2]]);
  });

  it("does not blame a retry that only waited behind the first attempt's build", () => {
    const attempts = [refused(1, FIRST), cutOff(2), refused(3, FIRST), ok(4)];
    expect(buildsOfCutOffRetries(attempts).size).to.equal(0);
  });

  it('names nothing where the refusals name no id', () => {
    const attempts = [cutOff(1), { ...refused(2, RETRY), message: 'name is reserved' }, ok(3)];
    expect(buildsOfCutOffRetries(attempts).size).to.equal(0);
  });

  it('adds a note only for the builds the leftovers name', () => {
    const retries = [cutOff(1), refused(2, RETRY), ok(3)];
    expect(retryBuildsNamedIn(`cgroup: cri-conform/${RETRY} exists in 10 hierarchies`, retries)).to.equal(
      '; 02ac5fc9053b3 was the build of retry #1, which timed out in turn',
    );
    expect(retryBuildsNamedIn(`cgroup: cri-conform/${FIRST} exists in 10 hierarchies`, retries)).to.equal('');
  });
});
