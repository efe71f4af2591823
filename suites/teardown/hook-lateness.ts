/**
 * How much later than half its hook TEAR-08's client gives up, learnt in the run: a loaded node reaches the
 * RemovePodSandbox hook late (containerd 2.1.9 at load 25 answered 2 and 3 of 20 trials' 125 ms deadlines
 * before the hook ran, and TEAR-08 ended in ERROR). The hook is held that much longer too, so a deadline
 * at most this late past the hook's start still expires inside it; the hold must end well before the
 * plugin timeout, which bounds the lateness (`maxMs`).
 */
export class HookLateness {
  ms = 0;
  readonly maxMs: number;

  constructor(maxMs: number) {
    this.maxMs = Math.max(0, maxMs);
  }

  /**
   * A deadline of `deadlineMs`, `usedLateMs` late, came before the hook: the next ones come later, twice as
   * late at most. Trials side by side that missed at the same lateness raise it once, not once each.
   */
  missed(usedLateMs: number, deadlineMs: number): void {
    if (usedLateMs < this.ms) return;
    this.ms = Math.min(this.maxMs, Math.max(2 * this.ms, deadlineMs));
  }

  /**
   * The hook was reached `reachedAfterMs` after the send. A node clearly faster again (in under half the
   * lateness learnt) gets the lateness that reach needs, not what its worst moment needed: every later
   * trial would otherwise hold its hooks, one at a time, that much longer.
   */
  reached(reachedAfterMs: number): void {
    if (reachedAfterMs < this.ms / 2) this.ms = Math.ceil(reachedAfterMs);
  }
}
