/**
 * Runs the selected checks: up to --parallel at once among checks whose sharing groups may share, and each
 * check that runs alone (sharing.ts) with nothing beside it. A check that waits its turn does not hold up the
 * checks after it that could start now. Checks that declare a long wait start first (check.ts longWait),
 * then the race checks (their trials are the longest work of a run, and overlap best when started
 * together), the rest in catalogue order. Results keep catalogue order whatever order they run in. An
 * injector check that rests (resting-checks.ts) counts as CRI-only until it resumes. Checks that skip
 * without touching the runtime are settled before any starts: were they scheduled, a [Slow] injector check
 * skipping at once would take the first places and keep the NRI checks beside it waiting for the next gap.
 */
import type { Check } from '../check/check.js';
import type { CheckResult } from '../check/result.js';
import { mayShareChecks } from '../check/sharing.js';
import { RestingChecks } from './resting-checks.js';

export interface ScheduleHooks {
  run(check: Check): Promise<CheckResult>;
  /** Whether run() skips the check without touching the runtime (selection.ts staticSkipReason). */
  skipsAtOnce?(check: Check): boolean;
  /** Called instead of run when the run was stopped before the check started. */
  notRun(check: Check, why: string): CheckResult;
  stopReason(): string | undefined;
}

interface Pending {
  check: Check;
  index: number;
}

/** Which checks start first: those with a long wait, then race checks, then the rest (a stable sort). */
function startRank(c: Check): number {
  if (c.longWait !== '') return 0;
  return c.trials ? 1 : 2;
}

export async function runScheduled(
  checks: readonly Check[],
  parallel: number,
  hooks: ScheduleHooks,
  resting = new RestingChecks(),
): Promise<CheckResult[]> {
  const results: CheckResult[] = new Array(checks.length);
  const pending: Pending[] = checks
    .map((check, index) => ({ check, index }))
    .sort((a, b) => startRank(a.check) - startRank(b.check));
  for (const skip of pending.filter((p) => hooks.skipsAtOnce?.(p.check))) {
    // A run stopped already reports them as not run, like every other check it did not start.
    if (hooks.stopReason()) break;
    pending.splice(pending.indexOf(skip), 1);
    results[skip.index] = await hooks.run(skip.check);
  }
  const running = new Map<Promise<void>, Check>();
  const thrown: unknown[] = [];
  resting.watch(() => [...running.values()]);
  const limit = Math.max(1, parallel);
  const fits = (c: Check): boolean => {
    if (running.size === 0) return true;
    // A resting check adds no load: it takes no place of --parallel.
    if ([...running.values()].filter((r) => !resting.isResting(r)).length >= limit) return false;
    return [...running.values()].every((r) => mayShareChecks(c, resting.asScheduled(r)));
  };
  for (;;) {
    // A run hook that threw (a broken reporter) ends the schedule with its error.
    if (thrown.length > 0) throw thrown[0];
    const stop = hooks.stopReason();
    if (stop) for (const p of pending.splice(0)) results[p.index] = hooks.notRun(p.check, stop);
    const next = pending.findIndex((p) => fits(p.check));
    if (next >= 0) {
      const [{ check, index }] = pending.splice(next, 1) as [Pending];
      const tracked: Promise<void> = hooks
        .run(check)
        .then(
          (r) => {
            results[index] = r;
          },
          (e: unknown) => {
            thrown.push(e);
          },
        )
        .finally(() => {
          running.delete(tracked);
          resting.ended(check);
        });
      running.set(tracked, check);
      continue;
    }
    if (running.size === 0) return results;
    // A check that rests from its injectors, or resumes, may let another start, as one that ends does.
    await Promise.race([...running.keys(), resting.changed()]);
  }
}
