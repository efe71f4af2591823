import { expect } from 'chai';
import type { Check } from '../check/check.js';
import { fakeCheck, passedResult } from './fake-checks.test.helper.js';
import { RestingChecks } from './resting-checks.js';
import { runScheduled } from './scheduler.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs the checks with `bodies` (by id); returns the order of starts and ends as "+ID" and "-ID". */
async function scheduleWith(
  checks: readonly Check[],
  parallel: number,
  bodies: Record<string, (resting: RestingChecks, c: Check, order: readonly string[]) => Promise<void>>,
): Promise<string[]> {
  const resting = new RestingChecks();
  const order: string[] = [];
  await runScheduled(
    checks,
    parallel,
    {
      stopReason: () => undefined,
      notRun: (c) => passedResult(c),
      run: async (c) => {
        order.push(`+${c.id}`);
        await bodies[c.id]?.(resting, c, order);
        order.push(`-${c.id}`);
        return passedResult(c);
      },
    },
    resting,
  );
  return order;
}

describe('injector checks that rest', () => {
  it('let an NRI check start beside them once they rest, and not before', async () => {
    const checks = [fakeCheck('I-01', ['slow-runtime'], 'waits out a TTL'), fakeCheck('N-01', ['nri'])];
    const order = await scheduleWith(checks, 4, {
      'I-01': async (resting, c) => {
        await sleep(20);
        resting.turnFor(c).rest();
        await sleep(60);
      },
      'N-01': () => sleep(10),
    });
    expect(order).to.deep.equal(['+I-01', '+N-01', '-N-01', '-I-01']);
  });

  it('let a hook-lane check start beside them once they rest, where they say why held hooks change nothing they then assert', async () => {
    const lane = ['nri', 'stalls-hooks', 'holds-in-lane'] as const;
    const laneBeside = (restsBesideHeldHooks: string) => {
      const checks = [
        { ...fakeCheck('I-01', ['slow-runtime'], 'waits out a TTL'), restsBesideHeldHooks },
        fakeCheck('L-01', [...lane]),
      ];
      return scheduleWith(checks, 4, {
        'I-01': async (resting, c) => {
          await sleep(20);
          resting.turnFor(c).rest();
          await sleep(60);
        },
        'L-01': () => sleep(10),
      });
    };
    expect(await laneBeside('it arms no delay once resting')).to.deep.equal([
      '+I-01',
      '+L-01',
      '-L-01',
      '-I-01',
    ]);
    expect(await laneBeside('')).to.deep.equal(['+I-01', '-I-01', '+L-01', '-L-01']);
  });

  it('arm again only once the NRI checks beside them are done, and none starts meanwhile', async () => {
    const checks = [
      fakeCheck('I-01', ['slow-runtime'], 'waits out a TTL'),
      fakeCheck('N-01', ['nri']),
      fakeCheck('A-01'),
      fakeCheck('N-02', ['nri']),
    ];
    const abort = new AbortController();
    let seenWhenArmed = '';
    // Two at once: N-02 waits for a place while A-01 runs; from N-01's end only I-01's injectors keep it out.
    const order = await scheduleWith(checks, 2, {
      'I-01': async (resting, c, soFar) => {
        const turn = resting.turnFor(c);
        turn.rest();
        await sleep(10);
        await turn.resume(abort.signal);
        seenWhenArmed = soFar.join(' ');
        await sleep(20);
      },
      'N-01': () => sleep(40),
      'A-01': () => sleep(20),
      'N-02': () => sleep(5),
    });
    expect(seenWhenArmed).to.equal('+I-01 +N-01 +A-01 -A-01 -N-01');
    expect(order.slice(-3)).to.deep.equal(['-I-01', '+N-02', '-N-02']);
  });

  it('take no place of --parallel while they rest', async () => {
    const checks = [
      fakeCheck('I-01', ['slow-runtime'], 'waits out a TTL'),
      fakeCheck('A-01'),
      fakeCheck('A-02'),
    ];
    const order = await scheduleWith(checks, 2, {
      'I-01': async (resting, c) => {
        resting.turnFor(c).rest();
        await sleep(40);
      },
      'A-01': () => sleep(20),
      'A-02': () => sleep(20),
    });
    expect(order.slice(0, 3)).to.deep.equal(['+I-01', '+A-01', '+A-02']);
  });

  it('counts a resting check as CRI-only: still never beside one that runs alone', () => {
    const resting = new RestingChecks();
    const injector = fakeCheck('I-01', ['slow-runtime', 'creation-delay']);
    resting.turnFor(injector).rest();
    expect(resting.asScheduled(injector).needs).to.deep.equal([]);
    resting.ended(injector);
    expect(resting.asScheduled(injector).needs).to.deep.equal(['slow-runtime', 'creation-delay']);
  });
});
