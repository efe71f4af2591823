import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { HostView } from './host-view.js';
import { chooseInstanceRoot, mountOf, NoPlaceForInstance, spaceNeeded } from './placement.js';

const MIB = 1 << 20;
const MOUNTINFO = `27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
40 27 0:30 / /run rw,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw,size=1630000k,mode=755
41 40 0:31 / /run/user/0 rw,nosuid,nodev,relatime - tmpfs tmpfs rw
`;

describe("the private instance's folder", () => {
  it('finds the mount that holds a path, and its per-mount flags', () => {
    expect(mountOf(MOUNTINFO, '/run/cri-conform/isolated')).to.deep.include({ point: '/run' });
    expect(mountOf(MOUNTINFO, '/run/cri-conform/isolated')?.options).to.include('noexec');
    expect(mountOf(MOUNTINFO, '/run/user/0/x')?.options).not.to.include('noexec');
    expect(mountOf(MOUNTINFO, '/var/lib/cri-conform')).to.deep.include({ point: '/' });
    expect(mountOf(MOUNTINFO, '/running')).to.deep.include({ point: '/' });
  });

  describe('on tmpfs mounts of its own', function () {
    this.timeout(20_000);
    let base: string;
    const mounted: string[] = [];
    const mountTmpfs = (name: string, options: string) => {
      const dir = join(base, name);
      mkdirSync(dir);
      execFileSync('mount', ['-t', 'tmpfs', '-o', options, `cc-test-${name}`, dir]);
      mounted.push(dir);
      return dir;
    };
    before(function () {
      if (process.getuid?.() !== 0) this.skip();
      base = mkdtempSync(join(tmpdir(), 'cc-place-'));
    });
    after(() => {
      for (const dir of mounted.splice(0).reverse()) execFileSync('umount', [dir]);
      if (base) rmSync(base, { recursive: true, force: true });
    });

    it('passes over a noexec filesystem (as /run on Debian) for the next root, and says why when none fits', () => {
      const noexec = mountTmpfs('noexec', 'noexec,size=64m');
      const ok = mountTmpfs('exec', 'size=128m');
      const host = HostView.of(process.pid);
      const roots = [join(noexec, 'isolated'), join(ok, 'isolated')];
      expect(chooseInstanceRoot(host, MIB, roots)).to.equal(join(ok, 'isolated'));
      expect(() => chooseInstanceRoot(host, MIB, [join(noexec, 'isolated')]))
        .to.throw(NoPlaceForInstance)
        .with.property('message')
        .that.includes(`${noexec}/isolated: its filesystem (${noexec}) is mounted noexec`);
    });

    it('passes over a filesystem without room for the images plus a tenth of it kept free', () => {
      const small = mountTmpfs('small', 'size=16m');
      const host = HostView.of(process.pid);
      expect(spaceNeeded(4 * MIB)).to.equal(20 * MIB);
      expect(() => chooseInstanceRoot(host, 4 * MIB, [join(small, 'isolated')]))
        .to.throw(NoPlaceForInstance)
        .with.property('message')
        .that.matches(/16 MiB free on .*small, needs 20 MiB and keeps 64 MiB free/);
      const roomy = mountTmpfs('roomy', 'size=256m');
      expect(chooseInstanceRoot(host, 4 * MIB, [join(small, 'isolated'), join(roomy, 'isolated')])).to.equal(
        join(roomy, 'isolated'),
      );
    });
  });
});
