import { expect } from 'chai';
import { asMatrixRun, RECORDED, recordedRun } from './recorded-runs.test.helper.js';
import { sonobuoyRuns } from './sonobuoy-results.js';
import { sonobuoyTarball } from './sonobuoy-tarball.test.helper.js';
import { isGzip, readTar, TarError } from './tar.js';

describe('cri-conform runs in a Sonobuoy results tarball', () => {
  const c17 = recordedRun(RECORDED.containerd17);
  const c21 = recordedRun(RECORDED.containerd21);
  // Longer than a tar header's 100-character name field once under plugins/cri-conform/results/.
  const longNode = `ip-10-0-1-23.${'eu-west-1.'.repeat(6)}compute.internal`;

  for (const format of ['gnu', 'pax'] as const) {
    it(`finds each node's results.json, unpacked or in a nested tarball (${format} headers)`, () => {
      const tarball = sonobuoyTarball(
        [
          { node: 'node-a', outcome: c17 },
          { node: 'node-b', outcome: c21, nested: true },
          { node: longNode, outcome: c21 },
        ],
        { format },
      );
      expect(isGzip(tarball)).to.equal(true);
      const found = sonobuoyRuns(readTar(tarball), 'sonobuoy.tar.gz');
      expect(found.runs.map((r) => [r.plugin, r.node, r.outcome.properties.runtimeVersion])).to.deep.equal([
        ['cri-conform', longNode, '2.1.9+unknown'],
        ['cri-conform', 'node-a', '1.7.24~ds1'],
        ['cri-conform', 'node-b', '2.1.9+unknown'],
      ]);
      expect(found.runs[1]?.outcome.results).to.deep.equal(asMatrixRun(c17).outcome.results);
    });
  }

  it("reports a node Sonobuoy recorded an error for, and ignores another plugin's files", () => {
    const found = sonobuoyRuns(readTar(sonobuoyTarball([{ node: 'node-a', outcome: c17 }])), 't.tar.gz');
    expect(found.missing).to.deep.equal([
      { plugin: 'cri-conform', node: 'node-gone', why: 'Sonobuoy recorded an error for this node' },
    ]);
    expect(found.runs.map((r) => r.plugin)).to.deep.equal(['cri-conform']);
  });

  it('rejects what is not a tar archive, and one cut short, with a TarError', () => {
    expect(() => readTar(Buffer.from('{"schemaVersion": 2}'))).to.throw(TarError, 'not a tar archive');
    const whole = sonobuoyTarball([{ node: 'node-a', outcome: c17 }]);
    expect(() => readTar(whole.subarray(0, whole.length / 2))).to.throw(TarError);
  });
});
