import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { packageRoot } from '../cri/package-root.js';
import { HostView } from './host-view.js';
import { unwrapped } from './injectors.js';

describe("the private instance's injectors around the node's binaries", () => {
  const host = HostView.of(process.pid);
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cc-unwrap-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const installed = (script: string, placeholder: string, real: string) => {
    const file = join(dir, script);
    const text = readFileSync(join(packageRoot(), 'scripts/lib', script), 'utf8');
    writeFileSync(file, text.replace(`@${placeholder}@`, real));
    chmodSync(file, 0o755);
    return file;
  };

  it("wraps the binary behind a node's own cri-conform wrapper, never the wrapper and its control dir", () => {
    expect(unwrapped(installed('cni-slow.sh', 'REAL_PLUGIN', '/usr/lib/cni/bridge'), host)).to.equal(
      '/usr/lib/cni/bridge',
    );
    expect(unwrapped(installed('runc-slow.sh', 'REAL_RUNC', '/usr/sbin/runc'), host)).to.equal(
      '/usr/sbin/runc',
    );
  });

  it('keeps any other binary or script as it is', () => {
    const other = join(dir, 'runc-oom');
    writeFileSync(other, '#!/bin/sh\nreal_runc=\'/usr/sbin/runc\'\nexec /usr/sbin/runc "$@"\n');
    expect(unwrapped(other, host)).to.equal(other);
    expect(unwrapped('/bin/sh', host)).to.equal('/bin/sh');
    expect(unwrapped(join(dir, 'missing'), host)).to.equal(join(dir, 'missing'));
  });
});
