/**
 * The words a check is classified by: level, tags, suite and static needs. They sit apart from the check
 * record so that settings, results and the context can name them without importing the check itself.
 */
export type Level = 'MUST' | 'SHOULD' | 'OBSERVE';
export type Tag = 'Slow' | 'Node' | 'Restart';
export type SuiteName = 'idempotency' | 'names' | 'hooks' | 'teardown';
export const SUITES: readonly SuiteName[] = ['idempotency', 'names', 'hooks', 'teardown'];

/**
 * Static requirements, known before the check runs. An unmet need makes the check skip with a reason that
 * says how to meet it. `nri` checks also run serially; `exclusive` checks (global injectors, restarts) run
 * alone too. Injector needs that have alternatives are checked at run time via t.inject.
 */
export type Need = 'nri' | 'exclusive';
