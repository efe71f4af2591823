import { expect } from 'chai';
import { parseEndpoint } from './endpoint.js';
import { CriConnectError } from './errors.js';

describe('parseEndpoint', () => {
  it('accepts unix:/// URLs and keeps the socket path for stat', () => {
    expect(parseEndpoint('unix:///run/containerd/containerd.sock')).to.deep.equal({
      display: 'unix:///run/containerd/containerd.sock',
      target: 'unix:///run/containerd/containerd.sock',
      socketPath: '/run/containerd/containerd.sock',
    });
  });

  it('treats a bare absolute path as the same unix socket', () => {
    expect(parseEndpoint('/var/run/crio/crio.sock')).to.deep.equal(
      parseEndpoint('unix:///var/run/crio/crio.sock'),
    );
  });

  it('collapses extra leading slashes and trims whitespace', () => {
    expect(parseEndpoint('  unix:////run/x.sock ').socketPath).to.equal('/run/x.sock');
  });

  it('maps tcp://host:port to a dns target without a socket path', () => {
    const ep = parseEndpoint('tcp://10.0.0.5:10010');
    expect(ep).to.deep.equal({ display: 'tcp://10.0.0.5:10010', target: 'dns:10.0.0.5:10010' });
  });

  for (const bad of [
    '',
    'unix://relative.sock',
    'npipe:////./pipe/containerd',
    'http://x:1',
    'tcp://nohost',
  ]) {
    it(`rejects ${JSON.stringify(bad)} as a bad endpoint that says what to set`, () => {
      let caught: unknown;
      try {
        parseEndpoint(bad);
      } catch (e) {
        caught = e;
      }
      expect(caught).to.be.instanceOf(CriConnectError).with.property('kind', 'bad-endpoint');
      expect((caught as Error).message).to.contain('--runtime-endpoint');
    });
  }
});
