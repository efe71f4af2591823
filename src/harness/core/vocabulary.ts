/**
 * The words a check is classified by: level, tags, suite and static needs. They sit apart from the check
 * record so that settings, results and the context can name them without importing the check itself.
 */
export type Level = 'MUST' | 'SHOULD' | 'OBSERVE';
/** Every level, strictest first. */
export const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'OBSERVE'];
export type Tag = 'Slow' | 'Node' | 'Restart';
export type SuiteName = 'idempotency' | 'names' | 'hooks' | 'teardown';
export const SUITES: readonly SuiteName[] = ['idempotency', 'names', 'hooks', 'teardown'];

import type { InjectorNeed } from './injector-needs.js';

/**
 * Static requirements, known before the check runs. An unmet need makes the check skip with a reason that
 * says how to meet it. The needs also decide which checks share the runtime (sharing.ts): `exclusive`
 * checks (restarts) and `stalls-hooks` checks (they hold, hang or delay NRI hooks, which runtimes deliver
 * one at a time across all pods) run alone, unless every hook they stall is held inside the run's hook lane
 * (`holds-in-lane`: t.oneAtATime), where holds take turns with nothing queued in front of them: such checks
 * share the runtime with each other. A check declares every injector its scenario asks t.inject for and
 * whether it stalls hooks: the harness refuses an undeclared injector or stalling fault (and a stalling
 * fault of a `holds-in-lane` check outside the lane), so `doctor` can forecast every injector skip and no
 * check stalls the checks beside it. `held-create`: the slow runtime handler must hold CreateContainer
 * itself, which it can only on a runtime that runs the OCI create inside CreateContainer; the injector proof
 * tells (containerd runs it at StartContainer).
 */
export type Need = 'nri' | 'exclusive' | 'stalls-hooks' | 'holds-in-lane' | 'held-create' | InjectorNeed;
