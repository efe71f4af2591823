import { expect } from 'chai';
import { firstVersionDeadlineMs } from './environment.js';

describe('the first Version call of a run, doctor or cleanup', () => {
  it('waits at least 5 s, so a short --call-timeout does not fail a runtime that is slow to answer', () => {
    expect(firstVersionDeadlineMs(1_000)).to.equal(5_000);
  });

  it('waits as long as --call-timeout when that is longer', () => {
    expect(firstVersionDeadlineMs(20_000)).to.equal(20_000);
  });
});
