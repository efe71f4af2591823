import { expect } from 'chai';
import { runsAlone, undeclaredStall } from './sharing.js';

describe('sharing the runtime between checks', () => {
  it('runs checks that stall hooks, use an injector, are exclusive or use NRI alone, and lets CRI-only checks share', () => {
    expect(runsAlone({ needs: ['nri', 'stalls-hooks'] })).to.equal(true);
    expect(runsAlone({ needs: ['exclusive'] })).to.equal(true);
    expect(runsAlone({ needs: ['creation-delay'] })).to.equal(true);
    expect(runsAlone({ needs: ['slow-cni'] })).to.equal(true);
    expect(runsAlone({ needs: ['nri'] })).to.equal(true);
    expect(runsAlone({ needs: [] })).to.equal(false);
  });

  it('refuses a hang or delay fault to a check that does not declare it stalls hooks', () => {
    expect(undeclaredStall({ id: 'HOOK-01', needs: ['nri'] }, 'hang')).to.match(/HOOK-01.*stalls-hooks/);
    expect(undeclaredStall({ id: 'HOOK-01', needs: ['nri'] }, 'delay')).to.match(/stalls-hooks/);
    expect(undeclaredStall({ id: 'HOOK-01', needs: ['nri'] }, 'error')).to.equal(undefined);
    expect(undeclaredStall({ id: 'HOOK-01', needs: ['nri'] }, 'crash')).to.equal(undefined);
    expect(undeclaredStall({ id: 'TEAR-04', needs: ['nri', 'stalls-hooks'] }, 'hang')).to.equal(undefined);
  });
});
