import { expect } from 'chai';
import { LaneUseTally } from './lane-use.js';

describe('the hook lane’s use', () => {
  it('has none before the first turn', () => {
    expect(new LaneUseTally().use()).to.equal(undefined);
  });

  it('sums each check’s turns, most time first, and spans the first start to the last end', () => {
    const tally = new LaneUseTally();
    tally.add('TEAR-08', 100, 250);
    tally.add('TEAR-14', 250, 600);
    tally.add('TEAR-08', 700, 820.6);
    const use = tally.use();
    expect([use?.turns, use?.takenMs, use?.spanMs]).to.deep.equal([3, 621, 721]);
    expect(use?.byCheck.map((c) => [c.id, c.turns, c.takenMs])).to.deep.equal([
      ['TEAR-14', 1, 350],
      ['TEAR-08', 2, 271],
    ]);
  });
});
