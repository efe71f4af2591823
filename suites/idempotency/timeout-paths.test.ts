import { expect } from 'chai';
import { plannedTrials } from '../../src/harness/check/trials.js';
import { pathOfTrial, type TimeoutPath } from './timeout-paths.js';

const PATHS: TimeoutPath[] = [
  'sandbox: runtime create',
  'sandbox: network setup',
  'sandbox: NRI Run hook',
  'container: runtime create',
  'container: NRI Run hook',
];

/** Every (path, ending) pair the first `trials` trials reach. */
function reached(paths: readonly TimeoutPath[], trials: number): Set<string> {
  const seen = new Set<string>();
  for (let n = 1; n <= trials; n++) {
    const { path, ending } = pathOfTrial(paths, n);
    seen.add(`${path}/${ending}`);
  }
  return seen;
}

describe('IDEM-14 spreads its trials over every timeout path and both endings', () => {
  for (const count of [1, 2, 4, 5]) {
    it(`reaches each of ${count} paths with a deadline and with a cancel in ${2 * count} trials`, () => {
      const paths = PATHS.slice(0, count);
      expect(reached(paths, 2 * count).size).to.equal(2 * count);
    });
  }
});

describe('IDEM-14 and IDEM-16 plan three trials per path at the default --trials', () => {
  for (const [id, scale, paths] of [
    ['IDEM-14', 9 / 5, PATHS.filter((p) => !p.includes('NRI'))],
    ['IDEM-16', 6 / 5, PATHS.filter((p) => p.includes('NRI'))],
  ] as const) {
    it(`${id}: ${paths.length} paths, each with both endings, three times`, () => {
      const planned = plannedTrials(5, scale);
      expect(planned).to.equal(3 * paths.length);
      expect(reached(paths, planned).size).to.equal(2 * paths.length);
      for (const path of paths) {
        const trials = Array.from({ length: planned }, (_, i) => pathOfTrial(paths, i + 1)).filter(
          (x) => x.path === path,
        );
        expect(trials).to.have.length(3);
      }
    });
  }
});
