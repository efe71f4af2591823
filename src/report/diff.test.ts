import { expect } from 'chai';
import type { RunOutcome } from '../harness/check/result.js';
import { diffRuns } from './diff.js';
import { diffLines } from './diff-text.js';
import { result, sampleOutcome } from './sample-outcome.test.helper.js';

function run(over: Partial<RunOutcome> = {}): RunOutcome {
  return { ...sampleOutcome(), ...over };
}

describe('diffRuns', () => {
  const base = run({
    results: [
      result({ id: 'IDEM-01', verdict: 'passed' }),
      result({ id: 'IDEM-02', verdict: 'failed' }),
      result({ id: 'NAME-01', verdict: 'passed', durationMs: 2_000 }),
      result({ id: 'HOOK-01', verdict: 'skipped' }),
    ],
  });

  it('calls a pass that became a failure a regression', () => {
    const next = run({
      results: base.results.map((r) => (r.id === 'IDEM-01' ? { ...r, verdict: 'failed' } : r)),
    });
    const d = diffRuns(base, next);
    expect(d.changes).to.deep.include({
      id: 'IDEM-01',
      title: base.results[0]!.title,
      kind: 'regression',
      old: 'passed',
      new: 'failed',
    });
    expect(d.regressions).to.equal(1);
  });

  it('calls a failure that passes now a fix, which is no regression', () => {
    const next = run({
      results: base.results.map((r) => (r.id === 'IDEM-02' ? { ...r, verdict: 'passed' } : r)),
    });
    const d = diffRuns(base, next);
    expect(d.changes.map((c) => [c.id, c.kind])).to.deep.equal([['IDEM-02', 'fix']]);
    expect(d.regressions).to.equal(0);
  });

  it('lists new and removed checks without gating on them', () => {
    const next = run({
      results: [
        ...base.results.filter((r) => r.id !== 'HOOK-01'),
        result({ id: 'TEAR-16', verdict: 'failed' }),
      ],
    });
    const d = diffRuns(base, next);
    expect(d.changes.map((c) => [c.id, c.kind])).to.deep.equal([
      ['TEAR-16', 'new'],
      ['HOOK-01', 'removed'],
    ]);
    expect(d.regressions).to.equal(0);
  });

  it('shows both runtimes when they differ, and durations that moved past the threshold', () => {
    const next = run({
      properties: { ...base.properties, runtimeVersion: '2.1.9' },
      results: base.results.map((r) =>
        r.id === 'NAME-01' ? { ...r, durationMs: 9_000 } : { ...r, durationMs: r.durationMs + 100 },
      ),
    });
    const d = diffRuns(base, next);
    expect(d.old.runtime).to.equal('containerd 1.7.24');
    expect(d.new.runtime).to.equal('containerd 2.1.9');
    expect(d.durations).to.deep.equal([{ id: 'NAME-01', oldMs: 2_000, newMs: 9_000 }]);
    const text = diffLines(d).join('\n');
    expect(text).to.contain('old: containerd 1.7.24').and.to.contain('new: containerd 2.1.9');
    expect(text).to.contain('different runtimes').and.to.contain('+350%');
  });

  it('counts a new run that did not start as a regression', () => {
    const d = diffRuns(base, run({ results: [], notStarted: 'cannot reach the runtime' }));
    expect(d.regressions).to.equal(1);
    expect(d.changes).to.deep.equal([]);
    expect(diffLines(d).join('\n')).to.contain('did not start: cannot reach the runtime');
  });
});
