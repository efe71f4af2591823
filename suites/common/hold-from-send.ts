/**
 * A deadline's hold of an NRI hook, ended by the clock of the send. The plugin's delay counts from the
 * moment the hook is reached, which comes after the runtime's setup before the hook (tens of ms on an idle
 * node, seconds on a busy one). What the hold must outlast, the client giving up plus HOLD_MARGIN_MS, counts
 * from the send: measured so (timing.ts HOLD_MARGIN_MS), every ms the call took to reach its hook was a ms
 * the hook lane stood taken for nothing.
 */

/** The parts of a hook hold this needs (scenarios.ts HeldBy). */
export interface ReleasableHold {
  holdReached?: () => Promise<unknown>;
  releaseHold?: () => void;
}

/**
 * Answers the held hook `holdMs` after `sentAt` (performance.now()), once it is reached. The plugin's own
 * delay still caps the hold, so a hook reached late is held no longer than before. Returns a stop for the
 * timer, to call once the hold has ended. A hold that cannot be released early is left as it is.
 */
export function endHoldAfterSend(hold: ReleasableHold, sentAt: number, holdMs: number): () => void {
  const { holdReached, releaseHold } = hold;
  if (!holdReached || !releaseHold) return () => undefined;
  let stopped = false;
  holdReached().then(
    () => {
      if (stopped) return;
      const left = Math.max(0, Math.ceil(sentAt + holdMs - performance.now()));
      const release = () => {
        if (!stopped) releaseHold();
      };
      AbortSignal.timeout(left).addEventListener('abort', release, { once: true });
    },
    // Never reached: the attempt missed its hook, which the scenario reports; there is nothing to end.
    () => undefined,
  );
  return () => {
    stopped = true;
  };
}
