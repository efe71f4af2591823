import { expect } from 'chai';
import type { Check } from '../check/check.js';
import { fakeCheck as check, passedResult as result } from './fake-checks.test.helper.js';
import { runScheduled, type ScheduleHooks } from './scheduler.js';

/** Runs the checks with fake bodies that take `ms(id)` and records, for each check, who ran beside it. */
async function schedule(
  checks: readonly Check[],
  parallel: number,
  ms: (id: string) => number,
  skips: ReadonlySet<string> = new Set(),
) {
  const running = new Set<string>();
  const beside: Record<string, Set<string>> = {};
  const startOrder: string[] = [];
  let peak = 0;
  const hooks: ScheduleHooks = {
    stopReason: () => undefined,
    notRun: (c) => result(c),
    skipsAtOnce: (c) => skips.has(c.id),
    run: async (c) => {
      startOrder.push(c.id);
      const mine = new Set(running);
      beside[c.id] = mine;
      for (const other of running) beside[other]?.add(c.id);
      running.add(c.id);
      peak = Math.max(peak, running.size);
      await new Promise((r) => setTimeout(r, ms(c.id)));
      running.delete(c.id);
      return result(c);
    },
  };
  const results = await runScheduled(checks, parallel, hooks);
  return { results, beside, startOrder, peak };
}

describe('runScheduled', () => {
  it('runs CRI-only checks side by side and beside NRI watchers, and keeps catalogue order', async () => {
    const checks = [check('A-01'), check('N-01', ['nri']), check('A-02'), check('A-03')];
    const { results, beside } = await schedule(checks, 2, (id) => (id === 'A-01' ? 30 : 10));
    expect(results.map((r) => r.id)).to.deep.equal(['A-01', 'N-01', 'A-02', 'A-03']);
    expect([...(beside['A-01'] ?? [])]).to.include.members(['N-01', 'A-02']);
  });

  it('runs NRI watchers beside each other, and injector checks beside each other, never the two at once', async () => {
    const checks = [
      check('I-01', ['creation-delay']),
      check('N-01', ['nri']),
      check('A-01'),
      check('N-02', ['nri']),
      check('I-02', ['slow-cni']),
      check('N-03', ['nri']),
    ];
    const { beside } = await schedule(checks, 3, (id) => (id === 'I-01' ? 30 : 10));
    for (const n of ['N-01', 'N-02', 'N-03']) {
      const injectorNeighbours = [...(beside[n] ?? [])].filter((other) => other.startsWith('I-'));
      expect(injectorNeighbours, `injector checks beside ${n}`).to.deep.equal([]);
    }
    expect([...(beside['I-01'] ?? [])]).to.include.members(['A-01', 'I-02']);
    expect([...(beside['N-01'] ?? [])]).to.include.members(['N-02', 'N-03']);
  });

  it('runs a check that stalls NRI hooks, or is exclusive, with nothing beside it', async () => {
    const checks = [
      check('A-01'),
      check('N-01', ['nri']),
      check('S-01', ['nri', 'stalls-hooks']),
      check('A-02'),
      check('X-01', ['exclusive']),
      check('N-02', ['nri']),
    ];
    const { results, beside } = await schedule(checks, 3, () => 10);
    expect(results.map((r) => r.id)).to.deep.equal(checks.map((c) => c.id));
    expect([...(beside['S-01'] ?? [])]).to.deep.equal([]);
    expect([...(beside['X-01'] ?? [])]).to.deep.equal([]);
  });

  it('starts later checks that can share while a check that runs alone waits for the runtime', async () => {
    const checks = [check('A-01'), check('S-01', ['stalls-hooks']), check('A-02'), check('A-03')];
    const { startOrder, beside } = await schedule(checks, 3, (id) => (id === 'A-01' ? 30 : 5));
    expect(startOrder).to.deep.equal(['A-01', 'A-02', 'A-03', 'S-01']);
    expect([...(beside['S-01'] ?? [])]).to.deep.equal([]);
  });

  it('starts a check that declares a long wait before the rest of its group, and reports in catalogue order', async () => {
    const checks = [
      check('N-01', ['nri']),
      check('N-02', ['nri']),
      check('N-03', ['nri'], 'waits out a window'),
      check('N-04', ['nri']),
    ];
    const { results, startOrder } = await schedule(checks, 2, (id) => (id === 'N-03' ? 30 : 10));
    expect(startOrder).to.deep.equal(['N-03', 'N-01', 'N-02', 'N-04']);
    expect(results.map((r) => r.id)).to.deep.equal(['N-01', 'N-02', 'N-03', 'N-04']);
  });

  it('settles the checks that skip at once before any starts, so they keep no check waiting', async () => {
    const checks = [
      check('I-08', ['slow-cni'], 'waits out a cache TTL'),
      check('N-05', ['nri'], 'waits out a window'),
      check('I-01', ['slow-cni']),
    ];
    const { results, startOrder, beside } = await schedule(checks, 2, () => 10, new Set(['I-08']));
    // Had the skipping injector check taken a place, the NRI check could not have started beside it.
    expect(startOrder).to.deep.equal(['I-08', 'N-05', 'I-01']);
    expect([...(beside['I-08'] ?? [])]).to.deep.equal([]);
    expect(results.map((r) => r.id)).to.deep.equal(['I-08', 'N-05', 'I-01']);
  });

  it('never runs more than --parallel checks at once', async () => {
    const checks = ['A-01', 'A-02', 'A-03', 'A-04', 'A-05'].map((id) => check(id));
    const { peak } = await schedule(checks, 2, () => 5);
    expect(peak).to.equal(2);
  });

  it('marks checks not run once a stop reason appears', async () => {
    let stop: string | undefined;
    const results = await runScheduled([check('A-01', ['exclusive']), check('A-02')], 1, {
      stopReason: () => stop,
      notRun: (c, why) => ({ ...result(c), verdict: 'skipped', message: why }),
      run: async (c) => {
        stop = 'interrupted';
        return result(c);
      },
    });
    expect(results.map((r) => r.verdict)).to.deep.equal(['passed', 'skipped']);
  });

  it('reports a check that would skip at once as not run when the run was stopped before it began', async () => {
    const results = await runScheduled([check('I-08', ['slow-cni']), check('A-01')], 2, {
      stopReason: () => 'interrupted',
      notRun: (c, why) => ({ ...result(c), verdict: 'skipped', message: `not run: ${why}` }),
      skipsAtOnce: (c) => c.id === 'I-08',
      run: async () => expect.fail('no check starts in a run stopped before it began'),
    });
    expect(results.map((r) => r.message)).to.deep.equal(['not run: interrupted', 'not run: interrupted']);
  });
});
