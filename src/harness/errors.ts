/** Errors the harness raises. Each class lives here only, so `instanceof` works everywhere. */

/** The runtime or the node is not set up for the run: exit 2 with what to fix. */
export class EnvironmentError extends Error {
  readonly code = 'ERR_ENVIRONMENT';
  override readonly name = 'EnvironmentError';
}

/** Thrown by t.skip(): the check ends as skipped with this reason. */
export class SkipSignal extends Error {
  readonly code = 'ERR_CHECK_SKIPPED';
  override readonly name = 'SkipSignal';
}

/** A contract assertion that did not hold (t.expect, trials). Chai's AssertionError is treated the same. */
export class ContractViolation extends Error {
  readonly code = 'ERR_CONTRACT_VIOLATION';
  override readonly name = 'AssertionError';
}

/** A wait ran out of time: names what was awaited. Counts as a contract failure in a check. */
export class WaitTimeout extends Error {
  readonly code = 'ERR_WAIT_TIMEOUT';
  override readonly name = 'AssertionError';
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function isAssertion(e: unknown): boolean {
  return e instanceof Error && e.name === 'AssertionError';
}
