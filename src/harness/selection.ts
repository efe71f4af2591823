/** Which checks a run selects, and which of those cannot run here (and why). */
import type { Check } from './check.js';
import { type InjectorNeed, isInjectorNeed } from './injector-needs.js';
import type { LevelFilter } from './settings.js';
import type { Level } from './vocabulary.js';

export interface SelectionInput {
  suites: readonly string[];
  level: LevelFilter;
  focus?: RegExp;
  skip?: RegExp;
}

const LEVELS: Record<LevelFilter, readonly Level[]> = {
  must: ['MUST'],
  should: ['MUST', 'SHOULD'],
  all: ['MUST', 'SHOULD', 'OBSERVE'],
};

export function selectChecks(all: readonly Check[], s: SelectionInput): Check[] {
  return all.filter((c) => {
    const text = `${c.id} ${c.title}`;
    return (
      (s.suites.length === 0 || s.suites.includes(c.suite)) &&
      LEVELS[s.level].includes(c.level) &&
      (!s.focus || s.focus.test(text)) &&
      !s.skip?.test(text)
    );
  });
}

export interface Availability {
  slow: boolean;
  nri?: string; // why NRI checks cannot run
  node?: string; // why [Node] checks cannot run
  restart?: string; // why [Restart] checks cannot run
  injectors?: Partial<Record<InjectorNeed, string>>; // why checks with each injector need cannot run
}

/** The reason a selected check is skipped before it starts, or undefined when it can run. */
export function staticSkipReason(c: Check, a: Availability): string | undefined {
  if (c.tags.includes('Slow') && !a.slow) return '[Slow] takes more than 30 s (cache TTLs): run with --slow';
  if (c.tags.includes('Restart') && a.restart) return `[Restart] ${a.restart}`;
  if (c.tags.includes('Node') && a.node) return `[Node] ${a.node}`;
  if (c.needs.includes('nri') && a.nri) return a.nri;
  for (const need of c.needs.filter(isInjectorNeed)) {
    const missing = a.injectors?.[need];
    if (missing) return missing;
  }
  return undefined;
}

/** NRI checks, injector checks and restarts run alone: NRI delivers hooks one at a time across all pods. */
export function runsAlone(c: Check): boolean {
  return c.needs.includes('nri') || c.needs.includes('exclusive');
}
