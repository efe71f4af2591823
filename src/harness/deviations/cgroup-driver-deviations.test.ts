/**
 * A bundled containerd entry that explains a leaked cgroup must explain it on either cgroup driver: the
 * recorded runs are on cgroupfs (cgroup "cri-conform/<id>"), while a production node runs the systemd
 * driver, where the same object is the scope "cri_conform.slice/cri-containerd-<id>.scope". An entry that
 * matched only the first turned known runtime bugs into unknown FAILs on a systemd node.
 */
import { expect } from 'chai';
import { findPackageRoot } from '../../nri/package-root.js';
import { loadBundledDeviations } from './deviation-file.js';
import { readSample, samplePath } from './deviation-replay.js';

const CGROUPFS = /cgroup: \/?cri-conform\/([0-9a-f]{64})/;
const onSystemdDriver = (message: string) =>
  message.replace(new RegExp(CGROUPFS, 'g'), 'cgroup: cri_conform.slice/cri-containerd-$1.scope');

describe('bundled containerd entries on the systemd cgroup driver', () => {
  it("match a recorded leak's cgroup written as the systemd scope wherever they match it on cgroupfs", () => {
    const root = findPackageRoot();
    const entries = loadBundledDeviations(root).filter((d) => d.runtime === 'containerd');
    const sample = readSample(samplePath(root, 'containerd'));
    let compared = 0;
    const misses: string[] = [];
    for (const run of sample.runs) {
      for (const [id, messages] of Object.entries(run.messages)) {
        for (const message of messages.filter((m) => CGROUPFS.test(m))) {
          for (const d of entries.filter((e) => e.id === id && e.versions.test(run.version))) {
            if (!d.message.test(message)) continue;
            compared++;
            if (!d.message.test(onSystemdDriver(message)))
              misses.push(`${d.id} (${d.where}) on ${run.version}`);
          }
        }
      }
    }
    expect(compared, 'recorded cgroupfs leaks that an entry explains').to.be.greaterThan(0);
    expect(misses).to.deep.equal([]);
  });
});
