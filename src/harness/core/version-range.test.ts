import { expect } from 'chai';
import { leadingVersion, parseVersionRange } from './version-range.js';

describe('version ranges of expected deviations', () => {
  const cases: { range: string; version: string; holds: boolean }[] = [
    { range: '>=1.7.0 <1.8.0', version: '1.7.24', holds: true },
    { range: '>=1.7.0 <1.8.0', version: '1.8.0', holds: false },
    { range: '>=1.7.0 <1.8.0', version: '1.6.99', holds: false },
    { range: '>=1.7.0 <1.8.0 || >=2.1.0 <2.2.0', version: '2.1.9', holds: true },
    { range: '>=1.7.0 <1.8.0 || >=2.1.0 <2.2.0', version: '2.0.5', holds: false },
    { range: '>= 1.7 < 1.8', version: '1.7.3', holds: true },
    { range: '1.7.24', version: '1.7.24', holds: true },
    { range: '=1.7.24', version: '1.7.25', holds: false },
    { range: '>1.7.24', version: '1.7.25', holds: true },
    { range: '<=1.7.24', version: '1.7.24', holds: true },
    { range: '>=2', version: 'v2.1.9', holds: true },
  ];
  for (const { range, version, holds } of cases) {
    it(`${holds ? 'holds' : 'does not hold'} for version ${version} in "${range}"`, () => {
      expect(parseVersionRange(range).test(version)).to.equal(holds);
    });
  }

  it('reads the release a distribution build packages, ignoring its suffix', () => {
    expect(leadingVersion('1.7.24~ds1')).to.deep.equal([1, 7, 24]);
    expect(leadingVersion('2.1.9+unknown')).to.deep.equal([2, 1, 9]);
    expect(leadingVersion('v1.31.0-dev')).to.deep.equal([1, 31, 0]);
    expect(parseVersionRange('>=1.7.0 <1.8.0').test('1.7.24~ds1')).to.equal(true);
  });

  it('matches no version it cannot read', () => {
    expect(parseVersionRange('>=0.0.0').test('unknown')).to.equal(false);
  });

  it('rejects a malformed range with a reason naming the bad comparator', () => {
    expect(() => parseVersionRange('>=1.7.x')).to.throw(RangeError, /">=1.7.x"/);
    expect(() => parseVersionRange('~1.7')).to.throw(RangeError, /not a comparator/);
    expect(() => parseVersionRange('>=1.7 ||')).to.throw(RangeError, /empty alternative/);
  });
});
