/**
 * The start script of a throwaway containerd (scripts/lib/containerd-common.sh, write_start_script), which
 * its restart command runs from inside whoever called it: the daemon must not inherit that caller's
 * TMPDIR, which npm test removes when it ends (runc's exec files live there).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';

const LIB = resolve(import.meta.dirname, '../../../scripts/lib/containerd-common.sh');

describe('containerd-up.sh: the start script a restart runs', () => {
  const root = mkdtempSync(join(tmpdir(), 'cc-start-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it("starts the daemon with its own bin dir first on PATH, its config, and without the caller's TMPDIR", () => {
    const bin = join(root, 'bin');
    mkdirSync(bin);
    // Stands in for containerd: prints what it was started with.
    writeFileSync(
      join(bin, 'containerd'),
      '#!/bin/sh\necho "args=$*"\necho "PATH=$PATH"\necho "TMPDIR=$(printenv TMPDIR || echo unset)"\n',
    );
    chmodSync(join(bin, 'containerd'), 0o755);
    const made = spawnSync('bash', ['-c', `. "${LIB}" && write_start_script "$1" "$2"`, 'test', root, bin]);
    expect(made.status, String(made.stderr)).to.equal(0);
    const started = spawnSync(join(root, 'start.sh'), [], {
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', TMPDIR: join(root, 'scratch-of-the-caller') },
    });
    expect(started.status, started.stderr).to.equal(0);
    expect(started.stdout).to.equal(
      `args=--config ${root}/config.toml\nPATH=${bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\nTMPDIR=unset\n`,
    );
  });
});
