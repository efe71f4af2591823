/**
 * Runs the selected checks: CRI-only checks up to --parallel at once, checks that need NRI or a global
 * injector alone. Results keep catalogue order whatever order they finish in.
 */
import type { Check } from './check.js';
import type { CheckResult } from './result.js';
import { runsAlone } from './selection.js';

export interface ScheduleHooks {
  run(check: Check): Promise<CheckResult>;
  /** Called instead of run when the run was stopped before the check started. */
  notRun(check: Check, why: string): CheckResult;
  stopReason(): string | undefined;
}

export async function runScheduled(
  checks: readonly Check[],
  parallel: number,
  hooks: ScheduleHooks,
): Promise<CheckResult[]> {
  const results: CheckResult[] = new Array(checks.length);
  const running = new Set<Promise<void>>();
  const start = (check: Check, i: number) => {
    const p = hooks.run(check).then((r) => {
      results[i] = r;
    });
    const tracked = p.finally(() => running.delete(tracked));
    running.add(tracked);
  };
  for (const [i, check] of checks.entries()) {
    const alone = runsAlone(check);
    while (running.size > 0 && (alone || running.size >= Math.max(1, parallel))) await Promise.race(running);
    const stop = hooks.stopReason();
    if (stop) {
      results[i] = hooks.notRun(check, stop);
      continue;
    }
    start(check, i);
    if (alone) await Promise.all(running);
  }
  await Promise.all(running);
  return results;
}
