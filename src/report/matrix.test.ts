import { expect } from 'chai';
import { buildMatrix, type Matrix } from './matrix.js';
import { matrixLines } from './matrix-text.js';
import {
  asMatrixRun,
  onNode,
  RECORDED,
  recordedRun,
  SYNTHETIC,
  syntheticRun,
} from './recorded-runs.test.helper.js';

describe('the matrix across runs', () => {
  const c17 = recordedRun(RECORDED.containerd17);
  const c21 = recordedRun(RECORDED.containerd21);
  const row = (m: Matrix, id: string) => m.rows.find((r) => r.id === id);

  it('has one row per check in catalogue order and one column per distinct run', () => {
    const order = ['TEAR-16', 'IDEM-16', 'IDEM-01'];
    const m = buildMatrix([asMatrixRun(c17), asMatrixRun(c21)], order);
    expect(m.rows.slice(0, 3).map((r) => r.id)).to.deep.equal(order);
    expect(m.rows).to.have.length(c17.results.length);
    expect(m.columns.map((c) => c.runtime)).to.deep.equal([
      'containerd 1.7.24~ds1',
      'containerd 2.1.9+unknown',
    ]);
  });

  it('marks the checks that fail on one runtime and not the other as differing, and only those', () => {
    const m = buildMatrix([asMatrixRun(c17), asMatrixRun(c21)]);
    const differing = m.rows.filter((r) => r.state === 'differs').map((r) => r.id);
    const expected = c21.results
      .filter((r) => r.verdict !== c17.results.find((o) => o.id === r.id)?.verdict)
      .map((r) => r.id);
    expect(differing).to.deep.equal(expected).and.to.include('TEAR-16');
    expect(row(m, 'TEAR-16')?.cells).to.deep.equal(['passed', 'failed']);
    expect(m.rows.filter((r) => r.state === 'disagrees')).to.deep.equal([]);
  });

  it('folds runs of one runtime version with the same verdicts into one column that counts its nodes', () => {
    const m = buildMatrix([asMatrixRun(c21, 'node-1'), onNode(c21, 'node-2'), onNode(c21, 'node-3')]);
    expect(m.columns).to.have.length(1);
    expect(m.columns[0]?.runs.map((r) => r.node)).to.deep.equal(['node-1', 'node-2', 'node-3']);
    expect(matrixLines(m)[0]).to.contain('3 nodes: node-1, node-2, node-3').and.to.contain('(3 runs)');
  });

  it('marks where runs of the same runtime version disagree, on the row and on its cells', () => {
    const m = buildMatrix([
      asMatrixRun(c21, 'node-1'),
      onNode(c21, 'node-2'),
      onNode(c21, 'node-3', { 'TEAR-08': 'passed' }),
      asMatrixRun(c17),
    ]);
    expect(m.columns.map((c) => c.runs.length)).to.deep.equal([2, 1, 1]);
    const tear08 = row(m, 'TEAR-08');
    expect(tear08?.state).to.equal('disagrees');
    expect(tear08?.disagreeing).to.deep.equal([true, true, false]);
    // TEAR-16 differs between the versions but the two 2.1 columns agree on it.
    expect(row(m, 'TEAR-16')?.state).to.equal('differs');
    expect(matrixLines(m).join('\n')).to.match(/^TEAR-08 +SHOULD +FAIL! +pass! +FAIL +!!$/m);
  });

  it('shows a run of another cri-conform version and another check set as such, not as disagreement', () => {
    const other = syntheticRun();
    const m = buildMatrix([asMatrixRun(c17), asMatrixRun(other), asMatrixRun(c21)]);
    expect(m.toolVersions).to.deep.equal(['0.1.0', SYNTHETIC.toolVersion]);
    expect(m.checkSetsDiffer).to.equal(true);
    expect(row(m, 'TEAR-16')?.cells).to.deep.equal(['passed', undefined, 'failed']);
    expect(row(m, 'HOOK-02')?.state).to.equal('differs');
    const text = matrixLines(m).join('\n');
    expect(text).to.contain(`cri-conform 0.1.0, ${SYNTHETIC.toolVersion}`);
    expect(text).to.match(/^TEAR-16 +MUST +pass +- +FAIL +<>$/m);
  });

  it('says which runs did not start, so their missing verdicts do not read as passes', () => {
    const failed = { ...c17, results: [], notStarted: 'CRI socket unreachable' };
    const m = buildMatrix([asMatrixRun(c21), asMatrixRun(failed, 'node-x')]);
    expect(matrixLines(m).join('\n')).to.contain('   node-x: the run did not start: CRI socket unreachable');
    expect(row(m, 'TEAR-16')?.cells).to.deep.equal(['failed', undefined]);
  });

  it('gives a run the same column again when the same file is listed twice, and no disagreement', () => {
    const m = buildMatrix([asMatrixRun(c17), asMatrixRun(c17)]);
    expect(m.columns).to.have.length(1);
    expect(m.rows.every((r) => r.state === 'same')).to.equal(true);
  });
});
