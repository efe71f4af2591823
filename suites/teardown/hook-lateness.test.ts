import { expect } from 'chai';
import { HookLateness } from './hook-lateness.js';

describe('TEAR-08: how much later its client gives up once a deadline came before the hook', () => {
  it('doubles once for trials side by side that missed at the same lateness, and stays under its bound', () => {
    const late = new HookLateness(300);
    late.missed(0, 125);
    late.missed(0, 125);
    expect(late.ms).to.equal(125);
    late.missed(125, 250);
    expect(late.ms).to.equal(250);
    late.missed(250, 375);
    expect(late.ms).to.equal(300);
  });

  it('comes down to what a reach needs once the hook is reached in under half the lateness', () => {
    const late = new HookLateness(1_000);
    late.missed(0, 125);
    late.missed(125, 250);
    late.reached(200);
    expect(late.ms, 'a reach of more than half keeps it').to.equal(250);
    late.reached(40.2);
    expect(late.ms).to.equal(41);
  });

  it('never goes below zero room: a hook already near the plugin timeout learns no lateness', () => {
    const late = new HookLateness(-50);
    late.missed(0, 125);
    expect(late.ms).to.equal(0);
  });
});
