import { expect } from 'chai';
import { mayShare, mayShareChecks, sharingGroup, undeclaredStall } from './sharing.js';

describe('sharing the runtime between checks', () => {
  it('runs checks that stall hooks or are exclusive alone, and groups injector and CRI-only checks apart from NRI watchers', () => {
    expect(sharingGroup({ needs: ['nri', 'stalls-hooks'] })).to.equal('alone');
    expect(sharingGroup({ needs: ['exclusive'] })).to.equal('alone');
    expect(sharingGroup({ needs: ['nri', 'creation-delay'] })).to.equal('alone');
    expect(sharingGroup({ needs: ['nri'], loadsRuntime: 'eight pods a trial' })).to.equal('alone');
    expect(sharingGroup({ needs: ['nri'], loadsRuntime: '' })).to.equal('nri');
    expect(sharingGroup({ needs: ['creation-delay'] })).to.equal('injectors');
    expect(sharingGroup({ needs: ['slow-cni'] })).to.equal('injectors');
    expect(sharingGroup({ needs: [] })).to.equal('cri-only');
    expect(sharingGroup({ needs: ['nri'] })).to.equal('nri');
    expect(sharingGroup({ needs: ['nri', 'stalls-hooks', 'holds-in-lane'] })).to.equal('hook-lane');
    expect(sharingGroup({ needs: ['nri', 'stalls-hooks', 'holds-in-lane', 'exclusive'] })).to.equal('alone');
  });

  it('lets CRI-only checks run beside injector checks or NRI watchers, never those two together', () => {
    expect(mayShare('cri-only', 'nri')).to.equal(true);
    expect(mayShare('cri-only', 'injectors')).to.equal(true);
    expect(mayShare('nri', 'nri')).to.equal(true);
    expect(mayShare('nri', 'injectors')).to.equal(false);
    expect(mayShare('alone', 'cri-only')).to.equal(false);
    expect(mayShare('alone', 'alone')).to.equal(false);
  });

  it('lets checks whose holds take turns in the hook lane share the runtime with each other only', () => {
    expect(mayShare('hook-lane', 'hook-lane')).to.equal(true);
    expect(mayShare('hook-lane', 'cri-only')).to.equal(false);
    expect(mayShare('hook-lane', 'nri')).to.equal(false);
    expect(mayShare('hook-lane', 'alone')).to.equal(false);
  });

  it('lets an injector check that says why held hooks change nothing it asserts beside the lane, unless the lane check keeps it away', () => {
    const lane = { needs: ['nri', 'stalls-hooks', 'holds-in-lane'], besideHeldHooks: '' } as const;
    const saysWhy = { needs: ['slow-cni'], besideHeldHooks: 'its timeouts land before the hook' } as const;
    const silent = { needs: ['slow-cni'], besideHeldHooks: '' } as const;
    expect(mayShareChecks(lane, saysWhy)).to.equal(true);
    expect(mayShareChecks(saysWhy, lane)).to.equal(true);
    expect(mayShareChecks(lane, silent)).to.equal(false);
    const apart = { ...lane, apartFromInjectorChecks: 'its first attempts must reach the hook in time' };
    expect(mayShareChecks(apart, saysWhy)).to.equal(false);
    expect(mayShareChecks(saysWhy, apart)).to.equal(false);
    expect(mayShareChecks(apart, lane)).to.equal(true);
  });

  it('lets a check that says why held hooks change nothing it asserts beside every lane check while it counts as CRI-only (resting)', () => {
    const lane = { needs: ['nri', 'stalls-hooks', 'holds-in-lane'], besideHeldHooks: '' } as const;
    const apart = { ...lane, apartFromInjectorChecks: 'its first attempts must reach the hook in time' };
    const restingSaysWhy = { needs: [], besideHeldHooks: 'its timeouts land before the hook' } as const;
    const restingSilent = { needs: [], besideHeldHooks: '' } as const;
    expect(mayShareChecks(lane, restingSaysWhy)).to.equal(true);
    expect(mayShareChecks(restingSaysWhy, apart)).to.equal(true);
    expect(mayShareChecks(lane, restingSilent)).to.equal(false);
    expect(mayShareChecks({ needs: ['nri'], besideHeldHooks: '' }, restingSaysWhy)).to.equal(true);
  });

  it('refuses a hang or delay fault to a check that does not declare it stalls hooks', () => {
    expect(undeclaredStall({ id: 'HOOK-01', needs: ['nri'] }, 'hang', false)).to.match(
      /HOOK-01.*stalls-hooks/,
    );
    expect(undeclaredStall({ id: 'HOOK-01', needs: ['nri'] }, 'delay', false)).to.match(/stalls-hooks/);
    expect(undeclaredStall({ id: 'HOOK-01', needs: ['nri'] }, 'error', false)).to.equal(undefined);
    expect(undeclaredStall({ id: 'HOOK-01', needs: ['nri'] }, 'crash', false)).to.equal(undefined);
    expect(undeclaredStall({ id: 'TEAR-04', needs: ['nri', 'stalls-hooks'] }, 'hang', false)).to.equal(
      undefined,
    );
  });

  it('refuses a hang or delay fault outside the hook lane to a check whose holds must take turns there', () => {
    const laned = { id: 'IDEM-16', needs: ['nri', 'stalls-hooks', 'holds-in-lane'] } as const;
    expect(undeclaredStall(laned, 'delay', false)).to.match(/IDEM-16.*outside t.oneAtATime/);
    expect(undeclaredStall(laned, 'delay', true)).to.equal(undefined);
    expect(undeclaredStall(laned, 'error', false)).to.equal(undefined);
  });
});
