/**
 * A check is typed data: its identity and contract, plus the scenario to run. The harness builds the run
 * from these records; suites never touch the runner.
 */

import type { OfferedInjector } from '../core/injector-needs.js';
import type { Level, Need, SuiteName, Tag } from '../core/vocabulary.js';
import type { CheckContext } from './context.js';

export interface CheckSpec<C extends string = string> {
  id: string;
  level: Level;
  tags?: readonly Tag[];
  needs?: readonly Need[];
  /**
   * Injectors the scenario takes where the run offers them (t.inject.offers) and does without elsewhere.
   * The harness refuses an offer the check did not declare, so doctor knows every check a broken injector
   * would turn into an ERROR.
   */
  uses?: readonly OfferedInjector[];
  title: string;
  /** Where the contract comes from: a proto line at a pinned tag, an NRI doc or PR, a kubelet function. */
  contract: string;
  /**
   * The clauses of the contract the check asserts, by a stable id: every assertion names the clause it
   * checks (t.expect(cond, message, 'ready')), a failure says which clause broke, and the self-test proves
   * each clause of a MUST or SHOULD check with a mutant that breaks that clause (fixtures/MUTATIONS.md).
   * An OBSERVE check asserts nothing and declares none.
   */
  clauses: Readonly<Record<C, string>>;
  /**
   * The scenario is race-prone: run it --trials times; any violating trial fails the check. A scale runs
   * it that many times --trials (rounded; trials.ts plannedTrials): the number of paths the trials are
   * spread over, so that each path gets --trials of them, or more for a race that a broken runtime shows
   * in only a few attempts (`why` says which, so the extra time is explained where it is spent).
   */
  trials?: boolean | TrialsSpec;
  /**
   * Why the check may wait out a long window while the checks beside it work. The scheduler starts such a
   * check before the rest of its sharing group, so that the window overlaps their work instead of
   * stretching the end of the phase.
   */
  longWait?: string;
  /**
   * Why the hooks held by the checks of the hook lane (sharing.ts) change nothing this check asserts: an
   * injector check that says so shares the runtime with them (its calls may wait behind a held hook, up to
   * one hold, which none of its deadlines or windows is that close to).
   */
  besideHeldHooks?: string;
  /**
   * Why, once it rests from its injectors (t.inject.doneHolding: every creation it held has ended), the
   * hooks held by the lane's checks change nothing this injector check still asserts: it then shares the
   * runtime with them until it arms a delay again (run/resting-checks.ts).
   */
  restsBesideHeldHooks?: string;
  /**
   * Why this check of the hook lane would test something else with the besideHeldHooks injector checks
   * beside it: it then shares the runtime with the rest of the lane only.
   */
  apartFromInjectorChecks?: string;
  /**
   * Why the check loads the runtime so much that a check beside it would measure the load, not the
   * runtime (a latency bound missed, a plugin registration timed out): it then runs alone.
   */
  loadsRuntime?: string;
  run(t: CheckContext<NoInfer<C>>): Promise<void>;
}

/** How a race check runs its trials (CheckSpec.trials). */
export interface TrialsSpec {
  /** Trials per --trials (see CheckSpec.trials), and why the check takes more than --trials. */
  scale?: number;
  why?: string;
  /**
   * At most this many of the check's trials side by side, fewer than --parallel-trials, where running them
   * at once would change what a trial tests; `why` says how. (A trial's held NRI hooks already take turns:
   * t.oneAtATime.)
   */
  atOnce?: { max: number; why: string };
}

export interface Check
  extends Required<
    Omit<
      CheckSpec,
      | 'trials'
      | 'longWait'
      | 'besideHeldHooks'
      | 'restsBesideHeldHooks'
      | 'apartFromInjectorChecks'
      | 'loadsRuntime'
    >
  > {
  suite: SuiteName;
  trials: boolean;
  /** Trials per --trials (1 unless the check declares a scale). */
  trialScale: number;
  /** Why the check runs more trials than --trials ('' at scale 1). */
  trialScaleWhy: string;
  /** The most trials it runs at once, and why so few (undefined: --parallel-trials decides). */
  trialsAtOnce?: { max: number; why: string };
  /** Why the scheduler starts it early ('' when it need not). */
  longWait: string;
  /** Why it may share the runtime with the hook lane's checks ('' when it may not). */
  besideHeldHooks: string;
  /** Why it may share the runtime with the hook lane's checks while it rests ('' when it may not). */
  restsBesideHeldHooks: string;
  /** Why it keeps the hook lane's injector checks away ('' when it need not). */
  apartFromInjectorChecks: string;
  /** Why it runs alone for the load it puts on the runtime ('' when it need not). */
  loadsRuntime: string;
}

const ID_PATTERN = /^[A-Z]{3,5}-\d{2}$/;

const CLAUSE_PATTERN = /^[a-z][a-z0-9-]*$/;

/** Declares a check; the suite name is attached by the suite's index. */
export function defineCheck<const C extends string = never>(spec: CheckSpec<C>): CheckSpec {
  if (!ID_PATTERN.test(spec.id)) throw new Error(`check id ${spec.id} does not match ${ID_PATTERN}`);
  const bad = Object.keys(spec.clauses).find((c) => !CLAUSE_PATTERN.test(c));
  if (bad !== undefined) throw new Error(`${spec.id}: clause id ${bad} does not match ${CLAUSE_PATTERN}`);
  return spec as CheckSpec;
}

export function inSuite(suite: SuiteName, specs: readonly CheckSpec[]): Check[] {
  return specs.map((s) => ({
    suite,
    id: s.id,
    level: s.level,
    tags: s.tags ?? [],
    needs: needsOf(s),
    uses: s.uses ?? [],
    title: s.title,
    contract: s.contract,
    clauses: s.clauses,
    trials: s.trials !== undefined && s.trials !== false,
    trialScale: typeof s.trials === 'object' ? (s.trials.scale ?? 1) : 1,
    trialScaleWhy: typeof s.trials === 'object' ? (s.trials.why ?? '') : '',
    ...(typeof s.trials === 'object' && s.trials.atOnce ? { trialsAtOnce: s.trials.atOnce } : {}),
    longWait: s.longWait ?? '',
    besideHeldHooks: s.besideHeldHooks ?? '',
    restsBesideHeldHooks: s.restsBesideHeldHooks ?? '',
    apartFromInjectorChecks: s.apartFromInjectorChecks ?? '',
    loadsRuntime: s.loadsRuntime ?? '',
    run: s.run,
  }));
}

function needsOf(s: CheckSpec): readonly Need[] {
  const needs = new Set<Need>(s.needs ?? []);
  if (s.tags?.includes('Restart')) needs.add('exclusive');
  return [...needs];
}

export function displayName(c: Pick<Check, 'id' | 'title' | 'level'>): string {
  return `${c.id} ${c.title} [${c.level}]`;
}
