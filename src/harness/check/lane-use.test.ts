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
    expect(tally.use()).to.deep.equal({
      turns: 3,
      takenMs: 621,
      spanMs: 721,
      byCheck: [
        { id: 'TEAR-14', turns: 1, takenMs: 350 },
        { id: 'TEAR-08', turns: 2, takenMs: 271 },
      ],
    });
  });
});
