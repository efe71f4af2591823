/**
 * Skips with a reason that the test output shows. Mocha's `this.skip()` takes none, so the reason goes into
 * the title (the spec reporter prints it beside the skipped test) and onto the test as `skipReason`, which
 * scripts/test.mjs lists next to its summary line. From a `before` hook it marks every test of the suite.
 */
import type Mocha from 'mocha';

type WithReason = Mocha.Test & { skipReason?: string };

function mark(test: WithReason, reason: string): void {
  if (test.skipReason) return;
  test.skipReason = reason;
  test.title += ` (skipped: ${reason})`;
}

function markSuite(suite: Mocha.Suite, reason: string): void {
  for (const t of suite.tests) mark(t, reason);
  for (const s of suite.suites) markSuite(s, reason);
}

export function skipBecause(ctx: Mocha.Context, reason: string): never {
  const runnable = ctx.test;
  // @types/mocha leaves out Runnable.type, which mocha sets to 'hook' or 'test'.
  if ((runnable as { type?: string } | undefined)?.type === 'hook') {
    if (runnable?.parent) markSuite(runnable.parent, reason);
  } else if (runnable) {
    mark(runnable as WithReason, reason);
  }
  ctx.skip();
}

/** A suite that stands in for tests that cannot be declared at all here (one per provisioned runtime). */
export function describeSkipped(title: string, reason: string): void {
  describe(title, () => {
    it('runs', function () {
      skipBecause(this, reason);
    });
  });
}
