import { expect } from 'chai';
import { floorsOf, packedMs } from '../check/floors.js';
import { TrialScope, trialNamePrefix } from '../check/trial-scope.js';
import { HookLane } from './hook-lane.js';

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the hook lane: one hold of a hook at a time, and nothing of anyone else queued before it', () => {
  it('lets a trial in only once the others’ hooked calls in flight have returned', async () => {
    const lane = new HookLane();
    const log: string[] = [];
    let finish = () => {};
    const slow = lane.hooked('X-01 trial 1', async () => {
      log.push('trial 1 call sent');
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
      log.push('trial 1 call returned');
    });
    const held = lane.oneAtATime('X-01 trial 2', async () => {
      log.push('trial 2 holds');
    });
    await tick();
    expect(log).to.deep.equal(['trial 1 call sent']);
    finish();
    await Promise.all([slow, held]);
    expect(log).to.deep.equal(['trial 1 call sent', 'trial 1 call returned', 'trial 2 holds']);
  });

  it('holds back the others’ hooked calls while someone is in the lane, but not the holder’s own', async () => {
    const lane = new HookLane();
    const log: string[] = [];
    let leave = () => {};
    const held = lane.oneAtATime('X-01 trial 1', async () => {
      await lane.hooked('X-01 trial 1', async () => log.push('trial 1 own call'));
      await new Promise<void>((resolve) => {
        leave = resolve;
      });
      log.push('trial 1 leaves');
    });
    await tick();
    const other = lane.hooked('Y-02', async () => log.push('another check’s call'));
    await tick();
    expect(log).to.deep.equal(['trial 1 own call']);
    leave();
    await Promise.all([held, other]);
    expect(log).to.deep.equal(['trial 1 own call', 'trial 1 leaves', 'another check’s call']);
  });

  it('lets holds in in the order they asked, and knows inside whether the caller is in the lane', async () => {
    const lane = new HookLane();
    const order: string[] = [];
    expect(lane.laned()).to.equal(false);
    await Promise.all(
      ['a', 'b', 'c'].map((who) =>
        lane.oneAtATime(who, async () => {
          expect(lane.laned()).to.equal(true);
          order.push(who);
          await tick(2);
        }),
      ),
    );
    expect(order).to.deep.equal(['a', 'b', 'c']);
  });

  it('counts each turn toward the check that took it, and nested use not at all', async () => {
    const lane = new HookLane();
    expect(lane.use()).to.equal(undefined);
    const turn = (who: string) =>
      lane.oneAtATime(who, () => lane.oneAtATime(who, () => tick(2), undefined, 'X-01'), undefined, 'X-01');
    await Promise.all([turn('X-01 trial 1'), turn('X-01 trial 2'), lane.oneAtATime('Y-02', () => tick(2))]);
    const use = lane.use();
    expect(use?.turns).to.equal(3);
    expect(use?.byCheck.map((c) => [c.id, c.turns])).to.have.deep.members([
      ['X-01', 2],
      ['Y-02', 1],
    ]);
    expect(use?.spanMs).to.be.at.least(use?.takenMs ?? Number.POSITIVE_INFINITY);
  });
});

describe('the hook lane keeps turns and other calls in the order they came', () => {
  it('lets a call that no hold may meet in before the holds asked for after it, so a stream of holds never starves it', async () => {
    const lane = new HookLane();
    const order: string[] = [];
    const hold = (who: string) =>
      lane.oneAtATime(who, async () => {
        order.push(who);
        await tick(3);
      });
    const first = hold('hold 1');
    const call = lane.hooked('X-01 trial 9', async () => order.push('call'));
    const later = [hold('hold 2'), hold('hold 3')];
    await Promise.all([first, call, ...later]);
    expect(order).to.deep.equal(['hold 1', 'call', 'hold 2', 'hold 3']);
  });
});

describe('the trial a piece of work belongs to', () => {
  it('is carried by the async context of the work a trial starts', async () => {
    const scope = new TrialScope();
    expect(scope.current()).to.equal(undefined);
    await scope.run(7, async () => {
      await tick(1);
      expect(scope.current()).to.equal(7);
    });
  });

  it('names a trial’s pods so that neither the check’s key nor another trial’s starts them', () => {
    expect(trialNamePrefix('cc-idem-14-', 3)).to.equal('cc-idem-14t3-');
    expect(trialNamePrefix('cc-idem-14-', 30).startsWith(trialNamePrefix('cc-idem-14-', 3))).to.equal(false);
    expect(trialNamePrefix('cc-idem-14-', 3).startsWith('cc-idem-14-')).to.equal(false);
  });
});

describe('the floors of a trial check', () => {
  it('packs trials into lanes in trial order, each lane taking the next trial once free', () => {
    expect(packedMs([100, 100, 100, 100], 2)).to.equal(200);
    expect(packedMs([300, 100, 100, 100], 2)).to.equal(300);
    expect(packedMs([100, 100, 100], 1)).to.equal(300);
  });

  it('adds the waits outside the trials, and never goes below the waits spent in the lane', () => {
    const byTrial = new Map([
      [1, 1_000],
      [2, 1_000],
      [3, 1_000],
      [4, 1_000],
    ]);
    expect(floorsOf({ totalMs: 4_500, byTrial, lanedMs: 0, atOnce: 4 })).to.deep.equal({
      sideBySide: 1_500,
      serial: 4_500,
    });
    expect(floorsOf({ totalMs: 4_500, byTrial, lanedMs: 2_400, atOnce: 4 })).to.deep.equal({
      sideBySide: 2_900,
      serial: 4_500,
    });
  });

  it('lets the waits trials made resting overlap past their places, with at most twice as many under way', () => {
    const byTrial = new Map([1, 2, 3, 4].map((trial) => [trial, 1_000]));
    const restingByTrial = new Map([1, 2, 3, 4].map((trial) => [trial, 900]));
    const floors = (resting?: Map<number, number>) =>
      floorsOf({
        totalMs: 4_000,
        byTrial,
        lanedMs: 0,
        atOnce: 2,
        ...(resting ? { restingByTrial: resting } : {}),
      });
    expect(floors().sideBySide, 'two places, nothing resting').to.equal(2_000);
    expect(floors(restingByTrial).sideBySide, 'four trials under way at once').to.equal(1_000);
  });
});
