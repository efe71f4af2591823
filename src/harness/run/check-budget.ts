/**
 * A check's own-work deadline (--timeout) is set for DEFAULT_TRIALS trials. A race check that runs more (a
 * higher --trials, or a scale that takes several per --trials) does that much more work, and gets the
 * deadline in proportion: a fixed one ended a sound runtime's IDEM-15 (40 trials of eight pods) in ERROR on
 * a two-core VM, at 307 s of 300. Fewer trials never shorten it: the deadline is there for a runaway check.
 */
import type { Check } from '../check/check.js';
import { plannedTrials } from '../check/trials.js';
import { DEFAULT_TRIALS } from '../core/settings.js';

export interface CheckBudget {
  ms: number;
  /** How a check that ran out names it: "--timeout", or "--timeout for 20 trials, scaled to its 40". */
  source: string;
}

export function checkBudget(
  timeoutMs: number,
  check: Pick<Check, 'trials' | 'trialScale'>,
  trials: number,
): CheckBudget {
  if (!check.trials) return { ms: timeoutMs, source: '--timeout' };
  const planned = plannedTrials(trials, check.trialScale);
  if (planned <= DEFAULT_TRIALS) return { ms: timeoutMs, source: '--timeout' };
  return {
    ms: Math.round((timeoutMs * planned) / DEFAULT_TRIALS),
    source: `--timeout for ${DEFAULT_TRIALS} trials, scaled to its ${planned}`,
  };
}
