/**
 * What a check asserted, and what that makes of a run that ended without a failure. A PASS must rest on
 * at least one contract assertion: a check (or a variant, or a trial) that ends quietly without one
 * tested nothing, and says so as an ERROR. Only a violated assertion is a FAIL; a CRI call or a wait
 * that the check did not declare part of the contract is setup, and its failure is an ERROR.
 */
import { CriCallError } from '../../cri/errors.js';
import { ContractViolation, errorMessage, SetupError, SkipSignal, WaitTimeout } from '../core/errors.js';
import type { Level } from '../core/vocabulary.js';

/** How a variant of a check ended. */
export type VariantOutcome = { name: string; ran: true } | { name: string; ran: false; skipped: string };

/** A run that ended without an exception, judged: the verdict and, unless passed, why. */
export type QuietEnding =
  | { verdict: 'passed' | 'observed' }
  | { verdict: 'skipped' | 'error'; message: string };

export class Assertions {
  /** Contract assertions made so far, held or not. */
  private made = 0;
  /** The same by the trial they were made in (trials run side by side). */
  private readonly byTrial = new Map<number, number>();
  readonly variants: VariantOutcome[] = [];

  /**
   * `clauses`: the ids of the check's clauses (CheckSpec.clauses); every assertion names one of them.
   * `trialOf`: the trial the caller runs in (trial-scope.ts).
   */
  constructor(
    private readonly clauses: readonly string[],
    private readonly trialOf: () => number | undefined = () => undefined,
  ) {}

  get count(): number {
    return this.made;
  }

  /** Assertions made in one trial. */
  countIn(trial: number): number {
    return this.byTrial.get(trial) ?? 0;
  }

  private counted(): void {
    this.made++;
    const trial = this.trialOf();
    if (trial !== undefined) this.byTrial.set(trial, this.countIn(trial) + 1);
  }

  /** Fails the check with `message`, as a violation of `clause`, when `cond` is false. */
  expect(cond: boolean, message: string, clause: string): asserts cond {
    this.known(clause);
    this.counted();
    if (!cond) throw new ContractViolation(message, { clause });
  }

  /**
   * Fails the check, as a violation of `clause`, when there are findings; each is an independent violation
   * in its own words (ContractViolation.parts), such as the leftovers of one build each. `message` says
   * them all at once; by default they are joined.
   */
  expectNone(findings: readonly string[], clause: string, message = findings.join('; also: ')): void {
    this.known(clause);
    this.counted();
    if (findings.length > 0) throw new ContractViolation(message, { clause, parts: findings });
  }

  /** A precondition of the scenario: false means the tool could not set it up (ERROR). Not an assertion. */
  require(cond: boolean, message: string): asserts cond {
    if (!cond) throw new SetupError(message);
  }

  /** The call IS the contract: OK counts as an assertion, a non-OK status fails the check naming `what`. */
  expectOk<T>(what: string, call: Promise<T>, clause: string): Promise<T> {
    return this.asserted(
      call,
      (e) => (e instanceof CriCallError ? `${what}: ${e.message}` : undefined),
      clause,
    );
  }

  /** A wait the contract bounds: it must end within its window, or the check fails naming what never came. */
  expectWithin<T>(wait: Promise<T>, clause: string): Promise<T> {
    return this.asserted(wait, (e) => (e instanceof WaitTimeout ? e.message : undefined), clause);
  }

  /** Settles `work` as one assertion: the errors `violation` names become a FAIL, any other propagates. */
  private async asserted<T>(
    work: Promise<T>,
    violation: (e: unknown) => string | undefined,
    clause: string,
  ): Promise<T> {
    this.known(clause);
    try {
      const value = await work;
      this.counted();
      return value;
    } catch (e) {
      const why = violation(e);
      if (why === undefined) throw e;
      this.counted();
      throw new ContractViolation(why, { clause });
    }
  }

  /** An absence or a steady state held over a window (or not): an assertion either way. */
  async holds(window: Promise<void>, clause: string): Promise<void> {
    this.known(clause);
    try {
      await window;
    } catch (e) {
      throw e instanceof ContractViolation ? new ContractViolation(e.message, { clause }) : e;
    } finally {
      this.counted();
    }
  }

  /** A clause the check does not declare is the check's own bug, never a verdict on the runtime. */
  private known(clause: string): void {
    if (!this.clauses.includes(clause))
      throw new Error(
        `the check asserts clause "${clause}", which it does not declare (${this.clauses.join(', ')})`,
      );
  }

  /**
   * Runs one variant. A skip inside it is recorded and the check goes on; a variant that ends quietly
   * without an assertion is an ERROR, like a whole check would be.
   */
  async variant(name: string, scenario: () => Promise<void>): Promise<void> {
    // Inside a trial, only the trial's own assertions count: the trials beside it make theirs meanwhile.
    const trial = this.trialOf();
    const made = () => (trial === undefined ? this.count : this.countIn(trial));
    const before = made();
    try {
      await scenario();
    } catch (e) {
      if (!(e instanceof SkipSignal)) throw e;
      this.variants.push({ name, ran: false, skipped: e.message });
      return;
    }
    this.variants.push({ name, ran: true });
    if (made() === before) throw new SetupError(`variant "${name}" asserted nothing`);
  }

  /** The verdict of a check that returned without throwing. */
  judgeQuietEnding(level: Level, observed: number): QuietEnding {
    const ran = this.variants.filter((v) => v.ran);
    if (this.variants.length > 0 && ran.length === 0) {
      const why = this.variants.map((v) => (v.ran ? '' : `${v.name}: ${v.skipped}`)).join('; ');
      return { verdict: 'skipped', message: `every variant skipped (${why})` };
    }
    if (level === 'OBSERVE') {
      return observed > 0
        ? { verdict: 'observed' }
        : { verdict: 'error', message: 'observed nothing: the OBSERVE check recorded no value' };
    }
    if (this.count === 0) {
      return {
        verdict: 'error',
        message: 'asserted nothing: the check ended without a failure and without one contract assertion',
      };
    }
    return { verdict: 'passed' };
  }
}

/** The verdict an exception out of a check stands for (the run's abort is judged by the caller). */
export function classifyThrown(e: unknown): { verdict: 'failed' | 'skipped' | 'error'; message: string } {
  if (e instanceof SkipSignal) return { verdict: 'skipped', message: e.message };
  if (e instanceof Error && e.name === 'AssertionError') return { verdict: 'failed', message: e.message };
  if (e instanceof CriCallError) {
    return {
      verdict: 'error',
      message: `${e.message} (a call the scenario needed, not one it asserts on: nothing was decided)`,
    };
  }
  return { verdict: 'error', message: errorMessage(e) };
}
