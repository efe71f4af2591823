import { expect } from 'chai';
import { LearntLateness } from './learnt-lateness.js';

describe('the lateness a check learns once a deadline came before the delay it had to land in', () => {
  it('starts at its floor, doubles once for trials side by side that missed at the same lateness, and stays under its bound', () => {
    const late = new LearntLateness({ floorMs: 125, maxGuessedMs: 300 });
    late.missed(0);
    late.missed(0);
    expect(late.ms).to.equal(125);
    late.missed(125);
    late.missed(125);
    expect(late.ms).to.equal(250);
    late.missed(250);
    expect(late.ms).to.equal(300);
  });

  it('learns a reach it saw as it was, past the bound of a guess', () => {
    const late = new LearntLateness({ floorMs: 500, maxGuessedMs: 2_000 });
    late.missed(1_500);
    expect(late.ms).to.equal(2_000);
    late.missed(2_000, 3_120.4);
    expect(late.ms).to.equal(3_121);
  });

  it('comes down to what a reach needs once the delay is reached in under half the lateness', () => {
    const late = new LearntLateness({ floorMs: 125, maxGuessedMs: 1_000 });
    late.reached(10);
    expect(late.ms, 'nothing learnt yet').to.equal(0);
    late.missed(0);
    late.missed(125);
    late.reached(200);
    expect(late.ms, 'a reach of more than half keeps it').to.equal(250);
    late.reached(40.2);
    expect(late.ms).to.equal(41);
  });

  it('learns nothing where the hold has no room left before the plugin timeout', () => {
    const late = new LearntLateness({ floorMs: 125, maxGuessedMs: -50 });
    late.missed(0);
    expect(late.ms).to.equal(0);
  });
});
