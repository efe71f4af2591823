/**
 * The words a check is classified by: level, tags, suite and static needs. They sit apart from the check
 * record so that settings, results and the context can name them without importing the check itself.
 */
export type Level = 'MUST' | 'SHOULD' | 'OBSERVE';
export type Tag = 'Slow' | 'Node' | 'Restart';
export type SuiteName = 'idempotency' | 'names' | 'hooks' | 'teardown';
export const SUITES: readonly SuiteName[] = ['idempotency', 'names', 'hooks', 'teardown'];

import type { InjectorNeed } from './injector-needs.js';

/**
 * Static requirements, known before the check runs. An unmet need makes the check skip with a reason that
 * says how to meet it. `nri` checks also run serially; `exclusive` checks (restarts) run alone too, and so do
 * checks with an injector need, since injectors are global. A check declares every injector its scenario
 * asks t.inject for: the harness refuses an undeclared one, so `doctor` can forecast every such skip.
 */
export type Need = 'nri' | 'exclusive' | InjectorNeed;
