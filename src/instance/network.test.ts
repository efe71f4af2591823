import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { claimNetwork, overlaps, parseRoutes, releaseNetwork } from './network.js';

// Iface Destination Gateway Flags RefCnt Use Metric Mask MTU Window IRTT (little-endian hex)
const ROUTES = `Iface	Destination	Gateway	Flags	RefCnt	Use	Metric	Mask	MTU	Window	IRTT
eth0	00000000	0100000A	0003	0	0	0	00000000	0	0	0
eth0	0000000A	00000000	0001	0	0	0	0000FFFF	0	0	0
cc-br17	0011D50A	00000000	0001	0	0	0	00FFFFFF	0	0	0
`;

describe('the private bridge network', () => {
  it('reads routes from /proc/net/route and leaves out the default route', () => {
    const routes = parseRoutes(ROUTES);
    expect(routes).to.have.length(2);
    // 10.0.0.0/16 overlaps 10.0.5.0/24 but not 10.214.5.0/24
    const tenSixteen = routes[0]!;
    expect(overlaps(tenSixteen, { dest: 0x0a000500, mask: 0xffffff00 })).to.equal(true);
    expect(overlaps(tenSixteen, { dest: 0x0ad60500, mask: 0xffffff00 })).to.equal(false);
    expect(overlaps(routes[1]!, { dest: 0x0ad51100, mask: 0xffffff00 })).to.equal(true);
  });

  it('gives each live instance its own number and frees it on release', () => {
    const base = mkdtempSync(join(tmpdir(), 'cc-net-'));
    try {
      const claims = join(base, 'claims');
      const [a, b] = [join(base, 'a'), join(base, 'b')];
      for (const d of [a, b]) instanceDir(d);
      const first = claimNetwork(a, 'a', claims);
      const second = claimNetwork(b, 'b', claims);
      expect(second.number).not.to.equal(first.number);
      expect(second.subnet).to.match(/^10\.214\.\d+\.0\/24$/);
      expect(readlinkSync(join(claims, String(first.number)))).to.equal(a);
      releaseNetwork(a, first.number, claims);
      expect(existsSync(join(claims, String(first.number)))).to.equal(false);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

/** A directory that looks like a live instance's: claims stay while its instance.json exists. */
function instanceDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'instance.json'), '{}');
}
