import { expect } from 'chai';
import { capLine, collapseRetries, wrapAtSeparators, wrapNote } from './console-text.js';

describe('console text shortening', () => {
  const reserve = 'failed to reserve sandbox name "p_0": name "p_0" is reserved for "abc"';

  it('collapses identical consecutive attempts into one group with the latency range', () => {
    const attempts = Array.from({ length: 8 }, (_, i) => `#${i + 1} UNKNOWN ${10 + i}ms "${reserve}"`);
    expect(collapseRetries(`retries: ${attempts.join('; ')}; #9 OK 5ms)`)).to.equal(
      `retries: #1–#8 UNKNOWN ×8 (10–17ms) "${reserve}"; #9 OK 5ms)`,
    );
  });

  it('leaves short or differing attempt lists as they are', () => {
    const two = '#1 UNKNOWN 3ms "a"; #2 UNKNOWN 4ms "a"';
    expect(collapseRetries(two)).to.equal(two);
    const differ = '#1 UNKNOWN 3ms "a"; #2 UNKNOWN 4ms "b"; #3 UNKNOWN 5ms "c"';
    expect(collapseRetries(differ)).to.equal(differ);
    expect(collapseRetries('first DEADLINE_EXCEEDED 501ms; retries: #1 OK 178ms')).to.equal(
      'first DEADLINE_EXCEEDED 501ms; retries: #1 OK 178ms',
    );
  });

  it('collapses attempts without messages too', () => {
    expect(collapseRetries('#1 UNAVAILABLE 3ms; #2 UNAVAILABLE 4ms; #3 UNAVAILABLE 9ms')).to.equal(
      '#1–#3 UNAVAILABLE ×3 (3–9ms)',
    );
  });

  it('caps a long line at 300 characters and says where the full text is', () => {
    const line = capLine(`\u001b[31m${'x'.repeat(1_000)}\u001b[39m`);
    expect(line).to.have.length(300);
    expect(line).to.match(/full text in the JUnit\/JSON reports\)$/);
    expect(capLine('short')).to.equal('short');
  });

  it('breaks a long line after its "; " separators instead of cutting it', () => {
    const parts = Array.from({ length: 6 }, (_, i) => `part ${i} ${'z'.repeat(80)}`);
    const lines = wrapAtSeparators(parts.join('; '), 200);
    expect(lines.join(' ')).to.equal(parts.join('; '));
    for (const l of lines) expect(l.length).to.be.at.most(200);
    expect(wrapAtSeparators('short; line', 200)).to.deep.equal(['short; line']);
  });

  it('never cuts a run note, which no report holds: it breaks at its separators, a long piece stays whole', () => {
    const pids = Array.from(
      { length: 4 },
      (_, i) => `pid ${i} (containerd-shim-runc-v2 -id ${'f'.repeat(64)})`,
    );
    const long = `final sweep stopped 4 processes: ${pids.join('; ')}\nsecond line ${'y'.repeat(400)}`;
    const note = wrapNote(long, 200);
    expect(note).not.to.contain('cut:');
    expect(note.split('\n').join(' ')).to.equal(long.replace('\n', ' '));
    expect(note.split('\n').at(-1)).to.have.length(412);
  });
});
