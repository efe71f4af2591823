import { expect } from 'chai';
import { endHoldAfterSend } from './hold-from-send.js';

/** A hold whose hook is reached when the test says, recording when it was released. */
function fakeHold() {
  let reach: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const released: number[] = [];
  return {
    hold: { holdReached: () => reached, releaseHold: () => released.push(performance.now()) },
    reach,
    released,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a deadline hold of an NRI hook, ended by the clock of the send', () => {
  it('releases the hook the hold time after the send, not after the hook was reached', async () => {
    const { hold, reach, released } = fakeHold();
    const sentAt = performance.now();
    endHoldAfterSend(hold, sentAt, 120);
    await sleep(60);
    reach();
    await sleep(100);
    expect(released).to.have.length(1);
    const at = released[0] ?? 0;
    expect(at - sentAt).to.be.at.least(119);
  });

  it('releases at once a hook reached after its time had passed', async () => {
    const { hold, reach, released } = fakeHold();
    endHoldAfterSend(hold, performance.now() - 500, 120);
    reach();
    await sleep(5);
    expect(released).to.have.length(1);
  });

  it('releases nothing once stopped, and nothing for a hook never reached', async () => {
    const stopped = fakeHold();
    const stop = endHoldAfterSend(stopped.hold, performance.now(), 20);
    stopped.reach();
    await sleep(0);
    stop();
    const unreached = fakeHold();
    endHoldAfterSend(unreached.hold, performance.now(), 20);
    await sleep(40);
    expect(stopped.released).to.deep.equal([]);
    expect(unreached.released).to.deep.equal([]);
  });

  it('leaves alone a hold that cannot be released early', () => {
    expect(() => endHoldAfterSend({}, performance.now(), 20)()).not.to.throw();
  });
});
