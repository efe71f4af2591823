/** Which checks a run selects, and which of those cannot run here (and why). */

import { type InjectorNeed, isInjectorNeed } from '../core/injector-needs.js';
import type { LevelFilter } from '../core/settings.js';
import { LEVELS, type Level } from '../core/vocabulary.js';
import type { Check } from './check.js';

export interface SelectionInput {
  suites: readonly string[];
  level: LevelFilter;
  focus?: RegExp;
  skip?: RegExp;
}

const LEVELS_OF: Record<LevelFilter, readonly Level[]> = {
  must: ['MUST'],
  should: ['MUST', 'SHOULD'],
  all: LEVELS,
};

export function selectChecks(all: readonly Check[], s: SelectionInput): Check[] {
  return all.filter((c) => {
    const text = `${c.id} ${c.title}`;
    return (
      (s.suites.length === 0 || s.suites.includes(c.suite)) &&
      LEVELS_OF[s.level].includes(c.level) &&
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
  /**
   * Why the slow runtime handler cannot hold CreateContainer here (its proof saw the runtime run the OCI
   * create at StartContainer): checks that need `held-create` skip.
   */
  heldCreate?: string;
  /** Set with --beside-kubelet: the IDs --focus names, the only checks that may restart or stall the runtime. */
  besideKubelet?: { named: ReadonlySet<string> };
}

/** IDs that appear literally in the --focus pattern: asked for by name, not merely matched. */
export function namedInFocus(checks: readonly Check[], focus: RegExp | undefined): Set<string> {
  return new Set(focus ? checks.filter((c) => focus.source.includes(c.id)).map((c) => c.id) : []);
}

/** The reason a selected check is skipped before it starts, or undefined when it can run. */
export function staticSkipReason(c: Check, a: Availability): string | undefined {
  if (c.tags.includes('Slow') && !a.slow) return '[Slow] takes more than 30 s (cache TTLs): run with --slow';
  if (c.tags.includes('Restart') && a.restart) return `[Restart] ${a.restart}`;
  if (c.tags.includes('Node') && a.node) return `[Node] ${a.node}`;
  if (c.needs.includes('nri') && a.nri) return a.nri;
  const manners = a.besideKubelet && !a.besideKubelet.named.has(c.id) ? besideKubeletReason(c) : undefined;
  if (manners) return manners;
  for (const need of c.needs.filter(isInjectorNeed)) {
    const missing = a.injectors?.[need];
    if (missing) return missing;
  }
  if (c.needs.includes('held-create') && a.heldCreate) return a.heldCreate;
  return undefined;
}

/**
 * Beside a kubelet the runtime serves live pods: a restart takes them down with it, a wedged runtime
 * (TEAR-16's bug) strands them until someone restarts it, and a stalled hook holds up every pod's hooks,
 * since runtimes deliver them one at a time.
 */
function besideKubeletReason(c: Check): string | undefined {
  const why = c.tags.includes('Restart')
    ? 'it restarts the runtime, or may leave it wedged until a restart'
    : c.needs.includes('stalls-hooks')
      ? "it stalls the runtime's NRI hooks, which holds up the kubelet's pods too"
      : undefined;
  return why && `beside a kubelet (--beside-kubelet) ${why}: name its ID in --focus to run it anyway`;
}
