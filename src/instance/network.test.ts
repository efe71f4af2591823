import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { packageRoot } from '../cri/package-root.js';
import { claimNetwork, freeSubnets, NoFreeSubnet, releaseNetwork, writeConflist } from './network.js';
import { parsePrefix } from './taken-networks.js';

describe('the private bridge network', () => {
  let base: string;
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'cc-net-'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('gives each live instance its own subnet and frees it on release', () => {
    const claims = join(base, 'claims');
    const [a, b] = [join(base, 'a'), join(base, 'b')];
    for (const d of [a, b]) instanceDir(d);
    const first = claimNetwork(a, 'a', freeSubnets([], undefined, claims), claims);
    const second = claimNetwork(b, 'b', freeSubnets([], undefined, claims), claims);
    expect(second.subnet).not.to.equal(first.subnet);
    expect(second.subnet).to.match(/^10\.214\.\d+\.0\/24$/);
    expect(readlinkSync(join(claims, String(first.number)))).to.equal(a);
    releaseNetwork(a, first, claims);
    expect(existsSync(join(claims, String(first.number)))).to.equal(false);
  });

  it('never offers a 10.214.N.0/24 that a taken prefix overlaps', () => {
    const taken = [parsePrefix('10.214.0.0/17', 'route 10.214.0.0/17 in table 100')!];
    const offered = freeSubnets(taken, undefined, join(base, 'claims')).map(
      (c) => (c.prefix.net >>> 8) & 0xff,
    );
    expect(offered).to.have.length(250 - 127);
    expect(offered.every((n) => n >= 128)).to.equal(true);
  });

  it('takes the subnet the user names, and refuses one that overlaps a taken prefix, naming it', () => {
    const claims = join(base, 'claims');
    const [chosen] = freeSubnets([], '192.168.77.0/24', claims);
    expect(chosen?.claim).to.equal('192.168.77.0_24');
    expect(chosen?.bridge).to.match(/^ccx-[0-9a-f]{8}$/);
    const taken = [parsePrefix('192.168.0.0/16', 'route 192.168.0.0/16 in table 7 (this node)')!];
    expect(() => freeSubnets(taken, '192.168.77.0/24', claims))
      .to.throw(NoFreeSubnet)
      .with.property('message')
      .that.includes('overlaps route 192.168.0.0/16 in table 7 (this node)');
  });

  it("refuses a named subnet another live instance's claim overlaps", () => {
    const claims = join(base, 'claims');
    const owner = join(base, 'owner');
    instanceDir(owner);
    claimNetwork(owner, 'o', freeSubnets([], '10.50.0.0/16', claims), claims);
    expect(() => freeSubnets([], '10.50.3.0/24', claims)).to.throw(NoFreeSubnet, /private instance/);
  });

  it('lists the slow bridge wrapper alone, as the throwaway scripts do: the runtime brings lo up itself', () => {
    const net = { number: 7, bridge: 'cc-br7', subnet: '10.214.7.0/24', name: 'cri-conform-i7' };
    writeConflist(base, join(base, 'ipam'), net);
    const written = JSON.parse(readFileSync(join(base, '10-cri-conform-isolated.conflist'), 'utf8'));
    expect(written.plugins.map((p: { type: string }) => p.type)).to.deep.equal(['conform-bridge']);
    const script = join(packageRoot(), 'scripts/lib/containerd-config.sh');
    const args = [script, net.name, net.bridge, net.subnet, join(base, 'ipam')];
    const shell = spawnSync('bash', ['-c', '. "$0" && cni_conflist "$@"', ...args], { encoding: 'utf8' });
    expect(JSON.parse(shell.stdout)).to.deep.equal(written);
  });
});

/** A directory that looks like a live instance's: claims stay while its instance.json exists. */
function instanceDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'instance.json'), '{}');
}
