import { expect } from 'chai';
import { TrialPlaces } from './trial-places.js';

/** A promise with its resolve, to let a wait end when the test says so. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** Lets every callback already queued run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the places of trials side by side', () => {
  it('lets as many trials in as it has places, and the next one when a place is given up', async () => {
    const places = new TrialPlaces(2);
    const entered: number[] = [];
    for (const n of [1, 2, 3]) void places.enter().then(() => entered.push(n));
    await settle();
    expect(entered).to.deep.equal([1, 2]);
    places.leave();
    await settle();
    expect(entered).to.deep.equal([1, 2, 3]);
  });

  it('gives a resting trial’s place to the next trial, and takes one back before any new trial', async () => {
    const places = new TrialPlaces(1);
    await places.enter();
    const grace = gate();
    let rested = false;
    const resting = places
      .rest(1, () => grace.opened)
      .then(() => {
        rested = true;
      });
    const entered: number[] = [];
    void places.enter().then(() => entered.push(2));
    await settle();
    expect(entered, 'trial 2 starts while trial 1 rests').to.deep.equal([2]);
    void places.enter().then(() => entered.push(3));
    grace.open();
    await settle();
    expect(rested, 'trial 1 waits for a place after its rest').to.equal(false);
    places.leave();
    await resting;
    await settle();
    expect(entered, 'trial 1, back from its rest, went before trial 3').to.deep.equal([2]);
    places.leave();
    await settle();
    expect(entered).to.deep.equal([2, 3]);
  });

  it('gives up one place for a trial that rests twice at once', async () => {
    const places = new TrialPlaces(1);
    await places.enter();
    const [first, second] = [gate(), gate()];
    const both = Promise.all([places.rest(1, () => first.opened), places.rest(1, () => second.opened)]);
    const entered: number[] = [];
    void places.enter().then(() => entered.push(2));
    void places.enter().then(() => entered.push(3));
    await settle();
    expect(entered).to.deep.equal([2]);
    first.open();
    second.open();
    await settle();
    places.leave();
    await both;
    await settle();
    expect(entered, 'trial 1 took the place trial 2 gave up').to.deep.equal([2]);
  });

  it('allows twice its places under way', () => {
    expect(new TrialPlaces(4).underWayAtMost).to.equal(8);
  });
});
