import { expect } from 'chai';
import { UsageError } from '../errors.js';
import { resolveRunConfig } from '../resolve-config.js';
import { fleetFlagsFromEnv, fleetSourceOf } from './worker-env.js';

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

  it('names the variable a refused value came from, not the flag the worker merged it into', () => {
    const resolve = (flags: Record<string, string>, env: Record<string, string>) => () =>
      resolveRunConfig(fleetFlagsFromEnv(flags, env), env, {}, fleetSourceOf(flags, env));
    const env = {
      CONTAINER_RUNTIME_ENDPOINT: 'unix:///run/containerd/containerd.sock',
      CRI_CONFORM_TRIALS: '0',
      CRI_CONFORM_NRI_REQUEST_TIMEOUT: '5ms',
    };
    expect(resolve({}, env)).to.throw(
      UsageError,
      /^CRI_CONFORM_NRI_REQUEST_TIMEOUT \(--nri-request-timeout\): /,
    );
    expect(resolve({ nriRequestTimeout: '2s' }, env)).to.throw(
      UsageError,
      /^CRI_CONFORM_TRIALS \(--trials\): /,
    );
    expect(resolve({ nriRequestTimeout: '2s', trials: '0' }, env)).to.throw(UsageError, /^--trials: /);
  });
});
