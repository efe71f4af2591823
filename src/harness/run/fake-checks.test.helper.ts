/** Checks with no body, and the result of one that passed, for the scheduler's tests. */
import type { Check } from '../check/check.js';
import type { CheckResult } from '../check/result.js';
import type { Need } from '../core/vocabulary.js';

export function fakeCheck(id: string, needs: Need[] = [], longWait = ''): Check {
  return {
    id,
    suite: 'names',
    level: 'MUST',
    tags: [],
    needs,
    uses: [],
    title: id,
    clauses: {},
    contract: '',
    trials: false,
    trialScale: 1,
    trialScaleWhy: '',
    longWait,
    besideHeldHooks: '',
    restsBesideHeldHooks: '',
    apartFromInjectorChecks: '',
    loadsRuntime: '',
    run: async () => {},
  };
}

export function passedResult(c: Check): CheckResult {
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
