import { expect } from 'chai';
import type { CheckContext } from '../../src/harness/face.js';
import { lateReach } from './late-reach.js';

/** A check of a run of its own: lateReach keys what it learns by the run's settings. */
function checkOfNewRun(): CheckContext {
  return { settings: {} } as unknown as CheckContext;
}

describe('IDEM first attempts: how much later they give up on a node whose setup is slow', () => {
  const key = 'RunPodSandbox slow runtime handler';

  it('doubles once for trials side by side that missed at the same lateness, however many they were', () => {
    const t = checkOfNewRun();
    for (let i = 0; i < 4; i++) lateReach.learn(t, key, 0, undefined);
    expect(lateReach.of(t, key)).to.equal(500);
    for (let i = 0; i < 4; i++) lateReach.learn(t, key, 500, undefined);
    expect(lateReach.of(t, key)).to.equal(1000);
  });

  it('guesses an unseen reach at most 2 s late, and learns a seen one as it was', () => {
    const t = checkOfNewRun();
    lateReach.learn(t, key, 1500, undefined);
    expect(lateReach.of(t, key)).to.equal(2000);
    lateReach.learn(t, key, 2000, undefined);
    expect(lateReach.of(t, key)).to.equal(2000);
    lateReach.learn(t, key, 2000, 3120.4);
    expect(lateReach.of(t, key)).to.equal(3121);
  });

  it('gives the deadline back once an attempt reached the delay in under half of it, and never learns from one alone', () => {
    const t = checkOfNewRun();
    lateReach.landed(t, key, 300);
    expect(lateReach.of(t, key)).to.equal(0);
    lateReach.learn(t, key, 1000, undefined);
    lateReach.landed(t, key, 1400);
    expect(lateReach.of(t, key), 'a reach within the noise of a loaded node').to.equal(2000);
    lateReach.landed(t, key, 640.2);
    expect(lateReach.of(t, key)).to.equal(641);
    expect(lateReach.of(checkOfNewRun(), key), 'another run').to.equal(0);
  });
});
