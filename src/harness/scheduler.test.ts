import { expect } from 'chai';
import type { Check } from './check.js';
import type { CheckResult } from './result.js';
import { runScheduled } from './scheduler.js';
import type { Need } from './vocabulary.js';

function check(id: string, needs: Need[] = []): Check {
  return {
    id,
    suite: 'names',
    level: 'MUST',
    tags: [],
    needs,
    title: id,
    contract: '',
    trials: false,
    run: async () => {},
  };
}

function result(c: Check): CheckResult {
  return {
    id: c.id,
    suite: c.suite,
    title: c.title,
    level: c.level,
    tags: [],
    contract: '',
    verdict: 'passed',
    durationMs: 0,
    observations: {},
    timeline: [],
  };
}

describe('runScheduled', () => {
  it('runs CRI-only checks side by side, NRI checks alone, and keeps catalogue order', async () => {
    const checks = [check('A-01'), check('A-02'), check('N-01', ['nri']), check('A-03')];
    let running = 0;
    const overlaps: Record<string, number> = {};
    const results = await runScheduled(checks, 2, {
      stopReason: () => undefined,
      notRun: (c) => result(c),
      run: async (c) => {
        running++;
        overlaps[c.id] = running;
        await new Promise((r) => setTimeout(r, c.id === 'A-01' ? 20 : 5));
        running--;
        return result(c);
      },
    });
    expect(results.map((r) => r.id)).to.deep.equal(['A-01', 'A-02', 'N-01', 'A-03']);
    expect(overlaps['A-02']).to.equal(2);
    expect(overlaps['N-01']).to.equal(1);
  });

  it('marks checks not run once a stop reason appears', async () => {
    let stop: string | undefined;
    const results = await runScheduled([check('A-01', ['nri']), check('A-02')], 1, {
      stopReason: () => stop,
      notRun: (c, why) => ({ ...result(c), verdict: 'skipped', message: why }),
      run: async (c) => {
        stop = 'interrupted';
        return result(c);
      },
    });
    expect(results.map((r) => r.verdict)).to.deep.equal(['passed', 'skipped']);
  });
});
