import { expect } from 'chai';
import { UsageError } from '../errors.js';
import { fleetFlagsFromEnv } from './worker-env.js';

describe('the plugin env of a fleet worker', () => {
  it('reads a switch in the usual spellings, and stops on any other rather than taking it for off', () => {
    for (const [value, isolated] of [
      ['true', true],
      ['YES', true],
      ['1', true],
      ['off', false],
      ['False', false],
      ['0', false],
    ] as const)
      expect(fleetFlagsFromEnv({}, { CRI_CONFORM_ISOLATED: value }).isolated, value).to.equal(isolated);
    expect(() => fleetFlagsFromEnv({}, { CRI_CONFORM_ISOLATED: 'ture' })).to.throw(
      UsageError,
      'CRI_CONFORM_ISOLATED "ture" is not a switch: set true or false',
    );
  });
});
