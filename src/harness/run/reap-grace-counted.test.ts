import { expect } from 'chai';
import type { HostProbe } from '../check/context.js';
import { unusedHost } from '../check/fake-runtime.test.helper.js';
import type { HostLeak, PodHostSnapshot } from '../host/host-findings.js';
import { reapGraceCounted } from './reap-grace-counted.js';

const LEAK: HostLeak = { kind: 'process', what: 'pid 42 (pause)', of: 'a'.repeat(64) };

/** A probe whose leftovers take `tookMs` and find `leaks`; what else it is asked is never used here. */
function probeFinding(leaks: HostLeak[], tookMs: number): HostProbe {
  const after = async () => {
    await new Promise((resolve) => setTimeout(resolve, tookMs));
    return leaks;
  };
  return { ...unusedHost(), leftovers: after, newLeftovers: after };
}

const SNAPSHOT = {} as PodHostSnapshot;

describe('a reaping grace as a required wait', () => {
  it('counts a grace that ended with something left, at most as long as the grace', async () => {
    const counted: number[] = [];
    const host = reapGraceCounted(probeFinding([LEAK], 60), {
      countWait: (from, to) => counted.push(to - from),
    });
    expect(await host.leftovers(SNAPSHOT, { withinMs: 50 })).to.deep.equal([LEAK]);
    expect(counted).to.have.length(1);
    // Exactly the grace: the span is taken from performance.now() readings, so only float rounding is left.
    expect(counted[0]).to.be.closeTo(50, 1e-6);
  });

  it('counts the time waited when the probe gave up sooner than the grace', async () => {
    const counted: number[] = [];
    const host = reapGraceCounted(probeFinding([LEAK], 20), {
      countWait: (from, to) => counted.push(to - from),
    });
    await host.newLeftovers({} as never, { ids: [], labels: {} } as never, { withinMs: 1_000 });
    expect(counted).to.have.length(1);
    expect(counted[0]).to.be.within(15, 1_000);
  });

  it('counts nothing when everything was reaped', async () => {
    const counted: number[] = [];
    const host = reapGraceCounted(probeFinding([], 20), { countWait: (from, to) => counted.push(to - from) });
    expect(await host.leftovers(SNAPSHOT)).to.deep.equal([]);
    expect(counted).to.deep.equal([]);
  });

  it('passes every other question to the probe as it is', () => {
    const host = reapGraceCounted(
      { ...probeFinding([], 0), available: false, whyUnavailable: '[Node] off' },
      { countWait: () => undefined },
    );
    expect(host.available).to.equal(false);
    expect(host.whyUnavailable).to.equal('[Node] off');
    expect(() => host.netnsKind('/run/netns/x')).to.throw('not used');
  });

  it('hands the probe the way to rest through the grace, and counts as resting only what it waited resting', async () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    let rests = 0;
    const rest = <T>(wait: () => Promise<T>) => {
      rests++;
      return wait();
    };
    // The first look takes 20 ms with the place held; then the probe waits 40 ms through the rest it got.
    const probe: HostProbe = {
      ...unusedHost(),
      leftovers: async (_snapshot, opts) => {
        await sleep(20);
        const wait = opts?.rest ?? ((w) => w());
        return wait(async () => {
          await sleep(40);
          return [LEAK];
        });
      },
    };
    const counted: { ms: number; resting: boolean }[] = [];
    const host = reapGraceCounted(probe, {
      countWait: (from, to, resting) => counted.push({ ms: to - from, resting }),
      rest,
    });
    await host.leftovers(SNAPSHOT, { withinMs: 1_000 });
    expect(rests, 'the probe rested through the harness').to.equal(1);
    expect(counted.map((c) => c.resting)).to.deep.equal([false, true]);
    expect(counted[0]?.ms).to.be.at.least(15);
    expect(counted[1]?.ms).to.be.at.least(35);
  });

  it('counts nothing as resting when the probe never rested', async () => {
    const counted: boolean[] = [];
    const host = reapGraceCounted(probeFinding([LEAK], 20), {
      countWait: (_from, _to, resting) => counted.push(resting),
      rest: (wait) => wait(),
    });
    await host.leftovers(SNAPSHOT, { withinMs: 1_000 });
    expect(counted).to.deep.equal([false]);
  });
});
