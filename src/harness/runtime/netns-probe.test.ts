import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { NodeHostProbe } from './host-probe.js';

describe('the netns probe', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cc-'));
  const probe = new NodeHostProbe();
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('calls a namespace file (nsfs, reached through a symlink too) a netns', function () {
    if (process.platform !== 'linux') this.skip();
    symlinkSync('/proc/self/ns/net', join(dir, 'ns-link'));
    expect(probe.netnsKind('/proc/self/ns/net')).to.equal('netns');
    expect(probe.netnsKind(join(dir, 'ns-link'))).to.equal('netns');
  });

  it('tells an ordinary file at the path from a namespace, and a missing path from both', () => {
    writeFileSync(join(dir, 'plain'), 'not a namespace\n');
    expect(probe.netnsKind(join(dir, 'plain'))).to.equal('not-a-namespace');
    expect(probe.netnsKind(join(dir, 'missing'))).to.equal('absent');
  });
});
