/** Pods look like the kubelet's: every one carries the run's cgroup parent, as the kubelet always sends one. */
import { expect } from 'chai';
import { createConfigFactory } from './config-factory.js';

describe('pod configs', () => {
  it("give every pod the run's cgroup parent, whatever else the check asks for", () => {
    const make = createConfigFactory('202611271300-abcdef', 'HOOK-01', {
      testImage: 'test:1',
      cgroupParent: 'cri_conform.slice',
    });
    expect(make.pod('plain').linux?.cgroupParent).to.equal('cri_conform.slice');
    expect(make.pod('host', { hostNetwork: true, pidMode: 'CONTAINER' }).linux?.cgroupParent).to.equal(
      'cri_conform.slice',
    );
  });
});
