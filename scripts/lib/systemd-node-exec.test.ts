/**
 * Which node scripts/systemd-node-exec.sh runs a command in: the one whose env file the caller sourced
 * (its endpoints are what the command is handed), unless --dir or --version names another. Run where no
 * node is up, so each choice shows in the one line that says the chosen dir holds no node.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';

const EXEC = resolve(import.meta.dirname, '../../../scripts/systemd-node-exec.sh');

describe('systemd-node-exec.sh: the node a command runs in', () => {
  const root = mkdtempSync(join(tmpdir(), 'cc-node-exec-'));
  const sourced = join(root, 'sourced-node');
  after(() => rmSync(root, { recursive: true, force: true }));
  before(function () {
    // The script refuses to go on without root before it looks for the node.
    if (process.getuid?.() !== 0) this.skip();
  });

  function dirChosen(args: string[]): { status: number | null; stderr: string } {
    const run = spawnSync('bash', [EXEC, ...args, '--', 'true'], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        CRI_CONFORM_STATE: root,
        CRI_CONFORM_SYSTEMD_NODE_DIR: sourced,
      },
    });
    return { status: run.status, stderr: run.stderr };
  }

  it('runs in the node of the sourced env file when no --dir or --version is given', () => {
    const run = dirChosen([]);
    expect(run.status).to.equal(2);
    expect(run.stderr).to.contain(`no systemd node in ${sourced}:`);
  });

  it('runs in the node that --dir names, whatever env file was sourced', () => {
    const other = join(root, 'other-node');
    expect(dirChosen(['--dir', other]).stderr).to.contain(`no systemd node in ${other}:`);
  });

  it("runs in --version's default node, whatever env file was sourced", () => {
    expect(dirChosen(['--version', '2.1']).stderr).to.contain(`no systemd node in ${root}/systemd-node-2.1:`);
  });
});
