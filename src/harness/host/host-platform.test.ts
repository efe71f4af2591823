import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { hostPlatform } from './host-platform.js';

describe('the OS and kernel of the node under test', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cc-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("takes the OS name from the host root's os-release, and the kernel from this process's", () => {
    mkdirSync(join(root, 'etc'));
    writeFileSync(
      join(root, 'etc/os-release'),
      'NAME="Ubuntu"\nPRETTY_NAME="Ubuntu 24.04.1 LTS"\nID=ubuntu\n',
    );
    const p = hostPlatform(root);
    expect(p.os).to.equal('Ubuntu 24.04.1 LTS');
    expect(p.kernel).to.match(/^\S+ \S+ \S+$/);
  });

  it('leaves the OS out when the host root has no os-release (a pod that does not mount it)', () => {
    expect(hostPlatform(root)).to.have.keys(['kernel']);
  });
});
