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
    /** Counts the wait from `from` to `to` (performance.now() readings); Timeline.addRequiredSpan. */
    countWait: (from: number, to: number) => void;
    /** How the probe waits out the grace (ReapingGrace.rest): a trial rests meanwhile. */
    rest?: ReapingGrace['rest'];
  },
): HostProbe {
  const graced = async (
    leftovers: (rest: ReapingGrace['rest']) => Promise<HostLeak[]>,
    withinMs = REAP_GRACE_MS,
  ) => {
    const startedAt = performance.now();
    const leaks = await leftovers(grace.rest);
    if (leaks.length > 0) grace.countWait(startedAt, Math.min(performance.now(), startedAt + withinMs));
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
      graced((rest) => probe.leftovers(snapshot, { ...opts, ...(rest ? { rest } : {}) }), opts?.withinMs),
    stillHeld: (ids) => probe.stillHeld(ids),
    netnsKind: (path) => probe.netnsKind(path),
    baseline: () => probe.baseline(),
    netnsOwners: (ids, baseline) => probe.netnsOwners(ids, baseline),
    recordIds: (labels) => probe.recordIds(labels),
    newLeftovers: (baseline, evidence, opts) =>
      graced(
        (rest) => probe.newLeftovers(baseline, evidence, { ...opts, ...(rest ? { rest } : {}) }),
        opts?.withinMs,
      ),
  };
}
