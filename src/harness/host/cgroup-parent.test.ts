/**
 * The pods' cgroup parent: the tool's own in the learnt driver, or --cgroup-parent checked against it;
 * never the kubelet's kubepods, never a parent runc would refuse in that driver.
 */
import { expect } from 'chai';
import type { CgroupDriver, LearntDriver } from './cgroup-driver.js';
import { cgroupParentSyntaxProblem, placePods } from './cgroup-parent.js';

function learnt(driver: CgroupDriver | undefined, handlers: [string, CgroupDriver][] = []): LearntDriver {
  return {
    ...(driver ? { driver } : {}),
    source: driver ? 'CRI RuntimeConfig' : 'not told by the runtime',
    handlers: new Map(handlers),
    notes: driver ? [] : ['RuntimeConfig is not implemented', 'verbose Status has no config'],
  };
}

describe('--cgroup-parent syntax', () => {
  for (const good of ['cri_conform.slice', 'my-team.slice', '/cri-conform', '/a/b', '/x.slice/y.slice'])
    it(`accepts ${good}`, () => expect(cgroupParentSyntaxProblem(good)).to.equal(undefined));

  const bad: { value: string; says: RegExp }[] = [
    { value: '', says: /is not a cgroup parent/ },
    { value: 'a b.slice', says: /is not a cgroup parent/ },
    { value: '/a/../b', says: /no "\." or "\.\." parts/ },
    { value: 'kubepods.slice', says: /kubelet's \(kubepods\)/ },
    { value: 'kubepods-besteffort.slice', says: /kubelet's/ },
    { value: '/kubepods/besteffort', says: /kubelet's/ },
    { value: '/', says: /below the root/ },
    { value: '/cri-conform/', says: /trailing/ },
    { value: 'cri-conform', says: /neither a systemd slice/ },
    { value: '-.slice', says: /neither a systemd slice/ },
  ];
  for (const { value, says } of bad)
    it(`refuses "${value}" in one line that says what to pass`, () => {
      const problem = cgroupParentSyntaxProblem(value) ?? '';
      expect(problem).to.match(says);
      expect(problem).not.to.contain('\n');
      expect(problem).to.contain('cri_conform.slice');
    });
});

describe('placing pods by the learnt driver', () => {
  it('gives the systemd driver the slice cri_conform.slice and cgroupfs the cgroup /cri-conform', () => {
    expect(placePods(learnt('systemd'), undefined)).to.deep.equal({
      placement: {
        driver: 'systemd',
        driverSource: 'CRI RuntimeConfig',
        parent: 'cri_conform.slice',
        parentSource: 'default',
      },
    });
    expect(placePods(learnt('cgroupfs'), undefined).placement.parent).to.equal('/cri-conform');
  });

  it('takes a --cgroup-parent the driver can use, and refuses one it cannot', () => {
    const own = placePods(learnt('systemd'), 'team.slice');
    expect(own.placement).to.include({ parent: 'team.slice', parentSource: '--cgroup-parent' });
    expect(own.problem).to.equal(undefined);
    expect(placePods(learnt('systemd'), '/cri-conform').problem).to.match(
      /systemd cgroup driver \(CRI RuntimeConfig\), which takes a slice: pass a \*\.slice name/,
    );
    expect(placePods(learnt('cgroupfs'), 'team.slice').problem).to.match(/cgroupfs driver .* absolute path/);
  });

  it('refuses handlers on another driver than the runtime says: one parent cannot serve both', () => {
    const split = placePods(
      learnt('systemd', [
        ['', 'systemd'],
        ['conform-slow', 'cgroupfs'],
      ]),
      undefined,
    );
    expect(split.problem).to.match(/handler "conform-slow" is on cgroupfs/);
  });

  it('guesses cgroupfs for a driver the runtime did not tell, and says what to pass on systemd', () => {
    const unknown = placePods(learnt(undefined), undefined);
    expect(unknown.placement).to.include({ driver: 'unknown', parent: '/cri-conform' });
    expect(unknown.warning).to.match(
      /did not say .*RuntimeConfig is not implemented.* --cgroup-parent cri_conform\.slice/,
    );
    expect(placePods(learnt(undefined), 'cri_conform.slice')).to.deep.include({
      placement: {
        driver: 'unknown',
        driverSource: 'not told by the runtime',
        parent: 'cri_conform.slice',
        parentSource: '--cgroup-parent',
      },
    });
  });
});
