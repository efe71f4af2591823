import { expect } from 'chai';
import { checkBudget } from './check-budget.js';

describe("a check's own-work deadline", () => {
  const fiveMinutes = 300_000;

  it('is --timeout for a check without trials, and for one at the default trial count or fewer', () => {
    const plain = { ms: fiveMinutes, source: '--timeout' };
    expect(checkBudget(fiveMinutes, { trials: false, trialScale: 1 }, 20)).to.deep.equal(plain);
    expect(checkBudget(fiveMinutes, { trials: true, trialScale: 1 }, 20)).to.deep.equal(plain);
    expect(checkBudget(fiveMinutes, { trials: true, trialScale: 2 }, 5)).to.deep.equal(plain);
  });

  it('grows in proportion for a check that runs more trials, and says so', () => {
    expect(checkBudget(fiveMinutes, { trials: true, trialScale: 2 }, 20)).to.deep.equal({
      ms: 600_000,
      source: '--timeout for 20 trials, scaled to its 40',
    });
    expect(checkBudget(fiveMinutes, { trials: true, trialScale: 1 }, 30).ms).to.equal(450_000);
  });
});
