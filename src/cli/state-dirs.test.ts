import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pruneEmptyStateDirs } from './state-dirs.js';

describe('the state folders the tool leaves on the node', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cc-state-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A state root with an empty folder for pod logs and an instance index that still lists one. */
  const layout = () => {
    const [logs, index] = [join(root, 'pod-logs'), join(root, 'instances')];
    mkdirSync(logs);
    mkdirSync(index);
    writeFileSync(join(index, 'an-instance'), '');
    return { logs, index, dirs: [logs, index, root] };
  };

  it('removes the empty ones, deepest first, and keeps any that holds something', () => {
    const { logs, index, dirs } = layout();
    pruneEmptyStateDirs(dirs, () => false);
    expect([existsSync(logs), existsSync(index), existsSync(root)]).to.deep.equal([false, true, true]);
    rmSync(join(index, 'an-instance'));
    pruneEmptyStateDirs(dirs, () => false);
    expect(existsSync(root), 'the root goes once its folders have').to.equal(false);
  });

  it('takes nothing while another run is alive (it may be making its entry)', () => {
    const { logs, dirs } = layout();
    pruneEmptyStateDirs(dirs, () => true);
    expect(existsSync(logs)).to.equal(true);
  });
});
