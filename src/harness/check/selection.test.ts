import { expect } from 'chai';
import type { Level, Tag } from '../core/vocabulary.js';
import type { Check } from './check.js';
import { namedInFocus, selectChecks, staticSkipReason } from './selection.js';

function check(id: string, level: Level, tags: Tag[] = []): Check {
  return {
    id,
    suite: id.startsWith('HOOK') ? 'hooks' : 'names',
    level,
    tags,
    needs: [],
    uses: [],
    title: `title of ${id}`,
    clauses: {},
    contract: '',
    trials: false,
    trialScale: 1,
    trialScaleWhy: '',
    longWait: '',
    besideHeldHooks: '',
    restsBesideHeldHooks: '',
    apartFromInjectorChecks: '',
    loadsRuntime: '',
    run: async () => {},
  };
}

const ALL = [
  check('NAME-01', 'MUST'),
  check('NAME-08', 'OBSERVE'),
  check('HOOK-11', 'SHOULD'),
  check('HOOK-01', 'MUST', ['Slow']),
];

describe('selection', () => {
  it('selects MUST by default level, adds SHOULD at should, and OBSERVE at all', () => {
    const ids = (level: 'must' | 'should' | 'all') =>
      selectChecks(ALL, { suites: [], level }).map((c) => c.id);
    expect(ids('must')).to.deep.equal(['NAME-01', 'HOOK-01']);
    expect(ids('should')).to.deep.equal(['NAME-01', 'HOOK-11', 'HOOK-01']);
    expect(ids('all')).to.have.length(4);
  });

  it('matches focus and skip against "ID title"', () => {
    const ids = selectChecks(ALL, { suites: [], level: 'all', focus: /^HOOK/, skip: /title of HOOK-11/ }).map(
      (c) => c.id,
    );
    expect(ids).to.deep.equal(['HOOK-01']);
  });

  it('skips [Slow] checks without --slow and says how to run them', () => {
    const slow = ALL[3] as Check;
    expect(staticSkipReason(slow, { slow: false })).to.match(/--slow/);
    expect(staticSkipReason(slow, { slow: true })).to.equal(undefined);
  });

  it('beside a kubelet, skips checks that restart the runtime or stall its hooks, unless --focus names their ID', () => {
    const restart = check('IDEM-13', 'MUST', ['Restart']);
    const stalls = { ...check('HOOK-04', 'MUST'), needs: ['nri', 'stalls-hooks'] } as Check;
    const quiet = check('NAME-01', 'MUST');
    const beside = (focus?: RegExp) => ({
      slow: true,
      besideKubelet: { named: namedInFocus([restart, stalls, quiet], focus) },
    });
    expect(staticSkipReason(restart, beside())).to.match(/--beside-kubelet.*restarts the runtime.*--focus/);
    expect(staticSkipReason(stalls, beside())).to.match(/stalls the runtime's NRI hooks/);
    expect(staticSkipReason(quiet, beside())).to.equal(undefined);
    expect(staticSkipReason(stalls, beside(/^HOOK-04 /))).to.equal(undefined);
    expect(staticSkipReason(stalls, beside(/^HOOK/)), 'a pattern that merely matches names nothing').to.match(
      /--focus/,
    );
    expect(staticSkipReason(restart, { slow: true })).to.equal(undefined);
  });
});
