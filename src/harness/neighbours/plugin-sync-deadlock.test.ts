import { expect } from 'chai';
import { pluginSyncDeadlockRisk } from './plugin-sync-deadlock.js';

describe('NRI beside a kubelet: the containerd versions whose plugin sync can deadlock', () => {
  const risk = (name: string, version: string) => pluginSyncDeadlockRisk({ name, version }) !== undefined;

  it('skips on containerd 1.7.26 and later 1.7, 2.0.3 and later, and every 2.1 to 2.4', () => {
    for (const v of [
      '1.7.26',
      'v1.7.34',
      '2.0.3',
      '2.0.11',
      'v2.1.9',
      '2.2.7',
      '2.3.4',
      '2.4.0-beta.0',
      'v1.7.26-k3s1',
    ])
      expect(risk('containerd', v), v).to.equal(true);
  });

  it('lets NRI run on containerd before the lock, and on runtimes that have no such lock', () => {
    for (const v of ['1.7.24~ds1', '1.7.25', '2.0.0', '2.0.2', '1.6.20'])
      expect(risk('containerd', v), v).to.equal(false);
    expect(risk('cri-o', '1.36.3')).to.equal(false);
  });

  it('skips wherever the version is unknown, and says why and what to do', () => {
    expect(risk('containerd', '')).to.equal(true);
    expect(risk('some-runtime', 'unknown')).to.equal(true);
    expect(pluginSyncDeadlockRisk({ name: 'containerd', version: 'v2.1.9' })).to.match(
      /deadlocks the runtime .*TEAR-16.*--isolated/,
    );
  });
});
