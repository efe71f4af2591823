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

/** The reason when `e` would skip the check, else undefined (for a scenario that goes on without a part). */
export function skipReason(e: unknown): string | undefined {
  return e instanceof SkipSignal ? e.message : undefined;
}

/**
 * A contract assertion that did not hold (t.expect, t.holdsFor, t.expectOk, t.expectWithin, trials): the
 * only thing that makes a check FAIL. Chai's AssertionError is treated the same.
 */
export class ContractViolation extends Error {
  readonly code = 'ERR_CONTRACT_VIOLATION';
  override readonly name = 'AssertionError';
  /** The clause of the check's contract that did not hold (CheckSpec.clauses); '' when none was named. */
  readonly clause: string;
  /**
   * The violation in its own words, without what the harness adds around it (the trial it came from, other
   * trials' errors): the text an expected-deviation entry is matched against, so no pattern reaches past it.
   */
  readonly own: string;
  /**
   * The independent findings the violation is made of, each in its own words (`own` alone when it is one):
   * it is a known deviation only when entries name every one, so two known bugs met in one trial are
   * both named, and a known bug beside an unknown one still fails.
   */
  readonly parts: readonly string[];

  constructor(message: string, about: ViolationWords = {}) {
    super(message);
    this.clause = about.clause ?? '';
    this.own = about.own ?? message;
    this.parts = about.parts ?? [this.own];
  }
}

/** What a violation says beside its message: see ContractViolation. */
export interface ViolationWords {
  clause?: string;
  own?: string;
  parts?: readonly string[];
}

/**
 * The clause, own words and parts of a violation (ContractViolation), or of another AssertionError (no
 * clause, one part).
 */
export function violationOf(e: unknown): Required<ViolationWords> {
  if (e instanceof ContractViolation) return { clause: e.clause, own: e.own, parts: e.parts };
  const own = errorMessage(e);
  return { clause: '', own, parts: [own] };
}

/**
 * A wait ran out of time: names what was awaited. A setup wait (t.poll) that times out means the tool
 * could not bring the scenario about, so the check ends in ERROR; contract waits use t.expectWithin.
 */
export class WaitTimeout extends Error {
  readonly code = 'ERR_WAIT_TIMEOUT';
  override readonly name = 'WaitTimeout';
}

/**
 * The scenario could not be set up (an injector that did not hold, a precondition that t.require found
 * false): the tool cannot decide, so the check ends in ERROR, never FAIL.
 */
export class SetupError extends Error {
  readonly code = 'ERR_SETUP';
  override readonly name = 'SetupError';
}

/**
 * The scenario did not come about this time, by chance (a deadline that expired before the hook it had to
 * land in, on a busy node): nothing was tested. A trial runs again from the start (trials.ts); outside
 * trials, or too often, it is an ERROR like any SetupError. `adapted`: the next run is set up to come
 * about where this one did not (a first attempt gives up later), so running it again tests more.
 */
export class ScenarioMissed extends SetupError {
  constructor(
    message: string,
    readonly adapted = false,
  ) {
    super(message);
  }
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function isAssertion(e: unknown): boolean {
  return e instanceof Error && e.name === 'AssertionError';
}
