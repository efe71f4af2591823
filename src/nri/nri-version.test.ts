import { expect } from 'chai';
import { eventsInMask, eventsMask } from './event-mask.js';
import { inferNriVersion, validEventsMask } from './nri-version.js';

describe('NRI version inference and event masks', () => {
  it('infers the NRI version of containerd from its reported version, Debian suffixes included', () => {
    const cases: [string, string, string][] = [
      ['containerd', '1.7.24~ds1', 'v0.6.1'],
      ['containerd', 'v1.7.26', 'v0.8.0'],
      ['v2', '2.0.0', 'v0.8.0'],
      ['containerd', '2.1.9', 'v0.8.0'],
      ['containerd', '2.2.0', 'v0.10.0'],
      ['containerd', '2.2.4', 'v0.11.0'],
      ['cri-o', '1.31.2', 'v0.6.1'],
      ['cri-o', '1.34.1', 'v0.10.0'],
      ['reference', '1.0.0', 'unknown'],
      ['containerd', 'garbage', 'unknown'],
    ];
    expect(cases.map(([n, v]) => inferNriVersion(n, v))).to.deep.equal(cases.map((c) => c[2]));
  });

  it('allows events 12-14 only from NRI v0.10.0 and keeps unknown versions at 0x7FF', () => {
    expect([
      validEventsMask('v0.6.1'),
      validEventsMask('v0.9.0'),
      validEventsMask('v0.10.0'),
      validEventsMask('unknown'),
    ]).to.deep.equal([0x7ff, 0x7ff, 0x3fff, 0x7ff]);
  });

  it('sets bit (event - 1) per event and reads the names back in enum order', () => {
    expect(eventsMask(['RunPodSandbox', 'StopPodSandbox', 'RemovePodSandbox'])).to.equal(0x7);
    expect(eventsMask(['ValidateContainerAdjustment'])).to.equal(0x2000);
    expect(eventsInMask(0x401)).to.deep.equal(['RunPodSandbox', 'RemoveContainer']);
  });
});
