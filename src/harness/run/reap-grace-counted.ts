/**
 * A check's host probe that counts a reaping grace waited out in full as one of the check's required
 * waits. A leftover found once the grace is over is a leak only because the check waited it out: a runtime
 * that leaks cannot be told from one that reaps slowly sooner. So the grace is a wait the contract sets,
 * like an absence window, and the benchmarks' floors and the check's deadline take it in. A grace that
 * ends early, everything reaped, waited only as long as the runtime took, and counts nothing; graces a
 * trial waits out at once count once. It hands the probe `rest`, so that inside a trial the grace is waited
 * out resting: the trial's place goes to the next trial meanwhile (trial-places.ts).
 */
import type { HostProbe, ReapingGrace } from '../check/context.js';
import type { HostLeak } from '../host/host-findings.js';
import { REAP_GRACE_MS } from '../runtime/host-probe.js';

export function reapGraceCounted(
  probe: HostProbe,
  grace: {
    /**
     * Counts the wait from `from` to `to` (performance.now() readings), `resting` if the trial waited it out
     * without its place; Timeline.addRequiredSpan.
     */
    countWait: (from: number, to: number, resting: boolean) => void;
    /** How the probe waits out the grace (ReapingGrace.rest): a trial rests meanwhile. */
    rest?: ReapingGrace['rest'];
  },
): HostProbe {
  const graced = async (leftovers: (opts: ReapingGrace) => Promise<HostLeak[]>, withinMs = REAP_GRACE_MS) => {
    const startedAt = performance.now();
    // The part of the grace the probe waited out through the rest, if it rested at all: its first look, and
    // a grace over by then, took the trial's place.
    let restedFrom: number | undefined;
    const restWith = grace.rest;
    const rest: ReapingGrace['rest'] = restWith
      ? (wait) => {
          restedFrom = performance.now();
          return restWith(wait);
        }
      : undefined;
    const leaks = await leftovers(rest ? { rest } : {});
    if (leaks.length === 0) return leaks;
    const endedAt = Math.min(performance.now(), startedAt + withinMs);
    const placedUntil = Math.min(restedFrom ?? endedAt, endedAt);
    grace.countWait(startedAt, placedUntil, false);
    if (endedAt > placedUntil) grace.countWait(placedUntil, endedAt, true);
    return leaks;
  };
  return {
    get available() {
      return probe.available;
    },
    get whyUnavailable() {
      return probe.whyUnavailable;
    },
    snapshot: (podId, containerIds) => probe.snapshot(podId, containerIds),
    leftovers: (snapshot, opts) =>
      graced((resting) => probe.leftovers(snapshot, { ...opts, ...resting }), opts?.withinMs),
    stillHeld: (ids) => probe.stillHeld(ids),
    netnsKind: (path) => probe.netnsKind(path),
    baseline: () => probe.baseline(),
    netnsOwners: (ids, baseline) => probe.netnsOwners(ids, baseline),
    recordIds: (labels) => probe.recordIds(labels),
    newLeftovers: (baseline, evidence, opts) =>
      graced((resting) => probe.newLeftovers(baseline, evidence, { ...opts, ...resting }), opts?.withinMs),
  };
}
