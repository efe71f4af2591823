import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { claimRunLogs, RUN_OWNER_FILE, removeRunLogs, runLogDirectory } from './pod-logs.js';
import { currentOwner } from './run-owner.js';
import { markWedgeRisk, wedgeRisksOfDeadRuns } from './wedge-risk.js';

describe('a runtime a killed run may have left wedged', () => {
  const root = mkdtempSync(join(tmpdir(), 'cc-wedge-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const containerd = 'unix:///run/cc-unit/containerd.sock';

  /** A run folder as claimRunLogs makes one, owned by `pid`, with the mark a check wrote in it. */
  function folder(name: string, pid: number, marked?: string): void {
    mkdirSync(join(root, name), { recursive: true });
    writeFileSync(join(root, name, RUN_OWNER_FILE), `${JSON.stringify({ ...currentOwner(), pid })}\n`);
    if (marked) writeFileSync(join(root, name, 'cri-conform-wedge-risk'), `${marked}\nTEAR-16 held it\n`);
  }

  it('names a killed run that was in the window on this runtime, not one on another, one still running or one unmarked', () => {
    const gone = spawnSync('true').pid as number;
    folder('killed', gone, containerd);
    folder('elsewhere', gone, 'unix:///run/crio/crio.sock');
    folder('running', process.pid, containerd);
    folder('unmarked', gone);
    expect(wedgeRisksOfDeadRuns('/var/run/cc-unit/containerd.sock', root)).to.deep.equal([
      'run killed was killed while TEAR-16 held it',
    ]);
  });

  it('writes the mark in the run folder and takes it away when the window closes', () => {
    const runId = `test-wedge-${process.pid}`;
    try {
      claimRunLogs(runId);
      const clear = markWedgeRisk(runId, containerd, 'TEAR-16 held it');
      expect(existsSync(join(runLogDirectory(runId), 'cri-conform-wedge-risk'))).to.equal(true);
      clear();
      expect(existsSync(join(runLogDirectory(runId), 'cri-conform-wedge-risk'))).to.equal(false);
    } finally {
      removeRunLogs(runId);
    }
  });
});
