/**
 * How much later a check's client gives up, learnt in the run, once a loaded node reached the delay the
 * deadline had to land in only after that deadline (IDEM-14's slow runtime handler at 640 ms against a
 * 500 ms deadline; TEAR-08's RemovePodSandbox hook on containerd 2.1.9 at load 25). The delay is held that
 * much longer too, so the deadline still expires inside it. Nothing changes where every attempt reaches
 * the delay in time.
 */
export class LearntLateness {
  ms = 0;
  private readonly floorMs: number;
  private readonly maxGuessedMs: number;

  /**
   * `floorMs`: the least a first miss raises it to. `maxGuessedMs`: the most an unseen reach is guessed
   * at; past it the node is slower than the hold can allow for (an NRI hook's hold must end before the
   * plugin timeout), and a negative room learns nothing.
   */
  constructor(bounds: { floorMs: number; maxGuessedMs: number }) {
    this.maxGuessedMs = Math.max(0, bounds.maxGuessedMs);
    this.floorMs = Math.min(bounds.floorMs, this.maxGuessedMs);
  }

  /**
   * An attempt given `usedLateMs` more missed the delay, which it reached `reachedAfterMs` after the send
   * (undefined: not by the reply). An unseen reach is guessed at twice the lateness that attempt had, so
   * that trials side by side which missed at the same lateness double it once, not once each (four of
   * IDEM-14's trials had taken it to 4 s in two rounds on a loaded two-core VM). A reach seen is learnt as
   * it was, however late.
   */
  missed(usedLateMs: number, reachedAfterMs?: number): void {
    const next =
      reachedAfterMs === undefined
        ? Math.min(Math.max(2 * usedLateMs, this.floorMs), this.maxGuessedMs)
        : Math.ceil(reachedAfterMs);
    this.ms = Math.max(this.ms, next);
  }

  /**
   * An attempt reached the delay in time, `reachedAfterMs` after the send. A node clearly faster again (in
   * under half the lateness learnt) gets the lateness that reach needs, not what its worst moment needed:
   * every later trial would otherwise hold its delay that much longer. Reaches vary by more than that
   * margin from one attempt to the next on a loaded node: lowered to every landed reach, the lateness made
   * the next attempts miss again (IDEM-14 on a two-core VM, where reaches went from 0.9 to 2.4 s).
   */
  reached(reachedAfterMs: number): void {
    if (reachedAfterMs < this.ms / 2) this.ms = Math.ceil(reachedAfterMs);
  }
}
