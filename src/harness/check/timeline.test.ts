import { expect } from 'chai';
import { Sequence, Timeline } from './timeline.js';

describe('required waits as spans', () => {
  it('counts waits a trial makes at once once, and waits one after another each', () => {
    let trial: number | undefined = 1;
    const timeline = new Timeline(new Sequence(), { trial: () => trial, laned: () => false });
    timeline.addRequiredSpan(0, 2_500);
    timeline.addRequiredSpan(10, 2_510);
    expect(timeline.requiredByTrial.get(1)).to.equal(2_510);
    timeline.addRequiredSpan(3_000, 5_500);
    expect(timeline.requiredByTrial.get(1)).to.equal(5_010);
    // Another trial's span at the same time is its own wait.
    trial = 2;
    timeline.addRequiredSpan(0, 2_500);
    expect(timeline.requiredByTrial.get(2)).to.equal(2_500);
    expect(timeline.requiredWaitMs).to.equal(7_510);
  });
});
