import { expect } from 'chai';
import { LIVE_LINE_MAX, renderLiveLine, renderStartLine, StartOrder } from './progress.js';

describe('progress', () => {
  it('renders the live line with the position, the running check and its elapsed time', () => {
    expect(renderLiveLine([{ id: 'TEAR-04', position: 12, startedAtMs: 1_000 }], 50, 4_400)).to.equal(
      '[12/50] TEAR-04 3.4 s',
    );
  });

  it('lists parallel checks in catalogue order, counting up to the latest one started', () => {
    const line = renderLiveLine(
      [
        { id: 'IDEM-03', position: 3, startedAtMs: 0 },
        { id: 'IDEM-02', position: 2, startedAtMs: 0 },
      ],
      50,
      65_000,
    );
    expect(line).to.equal('[3/50] IDEM-02 1m 05s · IDEM-03 1m 05s');
  });

  it("shows how many of a race check's trials are over", () => {
    const check = { id: 'IDEM-15', position: 42, startedAtMs: 0, trials: { done: 23, planned: 40 } };
    expect(renderLiveLine([check], 53, 252_000)).to.equal('[42/53] IDEM-15 4m 12s 23/40 trials');
  });

  it('keeps the live line within its width and draws nothing when nothing runs', () => {
    const many = Array.from({ length: 20 }, (_, i) => ({
      id: `IDEM-${10 + i}`,
      position: i + 1,
      startedAtMs: 0,
    }));
    expect(renderLiveLine(many, 50, 1).length).to.equal(LIVE_LINE_MAX);
    expect(renderLiveLine([], 50, 1)).to.equal('');
  });

  it('renders the plain start line a log gets', () => {
    expect(renderStartLine(4, 50, 'IDEM-04 title [MUST]')).to.equal('[4/50] start IDEM-04 title [MUST]');
  });

  it('hands back finished items in start order, holding early finishers', () => {
    const order = new StartOrder<string>();
    for (const id of ['a', 'b', 'c']) order.start(id);
    expect(order.finish('b', 'B')).to.deep.equal([]);
    expect(order.finish('a', 'A')).to.deep.equal(['A', 'B']);
    order.start('d');
    expect(order.finish('d', 'D')).to.deep.equal([]);
    expect(order.flush()).to.deep.equal(['D']);
  });
});
