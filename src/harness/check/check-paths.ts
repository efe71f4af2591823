/**
 * The paths of a check, and the known deviations its runs showed. A check whose scenario takes several
 * paths (a sandbox and a container, a plugin error and a CNI failure) runs each inside t.path. A violation
 * that an entry of the bundled or the given deviations names for this check decides only the run it showed
 * in: the path runs again in later trials (a new bug may show there), the other paths and trials go on,
 * and any other violation is a plain FAIL. So a known bug never hides a new one behind it.
 *
 * An entry is matched against a violation's own words (ContractViolation.own, with `path "<name>": ` in
 * front on a path), never against a message the harness composed around it: no pattern can reach into
 * another trial's error or another path's failure. A violation made of independent findings
 * (ContractViolation.parts: the leftovers of two builds in one trial) is known only when an entry names
 * each part, and each part is recorded under the entry that named it.
 */
import {
  ContractViolation,
  errorMessage,
  isAssertion,
  type ViolationWords,
  violationOf,
} from '../core/errors.js';
import type { ViolationRecord } from './result.js';

/** The observation that keeps a check's known deviations when another outcome decided its verdict. */
export const KNOWN_DEVIATION_OBSERVATION = 'known deviation';

/**
 * The entry of the bundled or the given deviations that matches this violation of the check, by where it
 * is written (one entry, one record), or undefined when none does.
 */
export type KnownDeviationTest = (message: string) => string | undefined;

interface PathRecord {
  /** Runs of the path that ended without a violation: outside trials, and the trials (once each). */
  heldOutside: number;
  heldIn: Set<number>;
}

export class CheckPaths {
  private readonly paths = new Map<string, PathRecord>();
  /** One record per path, clause and matching entry. */
  private readonly known: { entry: string; record: ViolationRecord }[] = [];
  /** Violations a path already tested against the entries and passed on: not tested again outside. */
  private readonly judged = new WeakSet<object>();

  constructor(
    private readonly isKnown: KnownDeviationTest,
    private readonly note: (text: string) => void,
  ) {}

  /**
   * Runs one path of the check. A scenario that returns 'not run' could not bring the runtime onto the
   * path (the check records why): no run of it. A known deviation ends this run of the path only.
   */
  async run(name: string, scenario: () => Promise<unknown>, trial?: number): Promise<void> {
    const record = this.paths.get(name) ?? { heldOutside: 0, heldIn: new Set<number>() };
    this.paths.set(name, record);
    try {
      if ((await scenario()) !== 'not run') {
        // A trial that runs again (its scenario missed) counts its path once.
        if (trial === undefined) record.heldOutside++;
        else record.heldIn.add(trial);
      }
    } catch (e) {
      if (!isAssertion(e)) throw e;
      const { clause, own, parts } = violationOf(e);
      const onPath = (text: string) => `path "${name}": ${text}`;
      const words = { clause, own: onPath(own), parts: parts.map(onPath) };
      if (this.keep(words, trial, name)) return;
      const thrown = new ContractViolation(onPath(errorMessage(e)), words);
      this.judged.add(thrown);
      throw thrown;
    }
  }

  /**
   * A violation out of a trial or the check itself (not of a path): true when it is a known deviation,
   * which is then recorded and ends only what it came out of.
   */
  absorb(e: unknown, trial?: number): boolean {
    if (!isAssertion(e) || (typeof e === 'object' && e !== null && this.judged.has(e))) return false;
    return this.keep(violationOf(e), trial);
  }

  private keep(
    { clause, parts }: Required<ViolationWords>,
    trial: number | undefined,
    path?: string,
  ): boolean {
    const entries = parts.map((part) => this.isKnown(part));
    if (entries.some((entry) => entry === undefined)) return false;
    parts.forEach((part, i) => {
      const entry = entries[i] ?? '';
      const same = this.known.find(
        (k) => k.entry === entry && k.record.path === path && k.record.clause === clause,
      )?.record;
      if (same && trial !== undefined && !same.trials?.includes(trial)) same.trials?.push(trial);
      else if (!same) {
        const record: ViolationRecord = {
          clause,
          message: part,
          known: true,
          ...(path !== undefined ? { path } : {}),
          ...(trial !== undefined ? { trials: [trial] } : {}),
        };
        this.known.push({ entry, record });
      }
    });
    const where = path === undefined ? 'the trial' : `path "${path}"`;
    const what = parts.length === 1 ? 'a known deviation' : `${parts.length} known deviations`;
    this.note(`${where} showed ${what}; the check goes on with its other paths and trials`);
    return true;
  }

  /** Whether a known deviation showed in this trial. */
  deviatedIn(trial: number): boolean {
    return this.known.some((k) => k.record.trials?.includes(trial));
  }

  /** Whether any known deviation showed. */
  get deviated(): boolean {
    return this.known.length > 0;
  }

  /** The known deviations, one record per path, clause and entry. */
  records(): ViolationRecord[] {
    return this.known.map(({ record: k }) => ({ ...k, ...(k.trials ? { trials: [...k.trials] } : {}) }));
  }

  /** How many times each path ran and held. */
  held(): Map<string, number> {
    const runs = (p: PathRecord) => p.heldOutside + p.heldIn.size;
    return new Map([...this.paths].filter(([, p]) => runs(p) > 0).map(([n, p]) => [n, runs(p)]));
  }

  /**
   * The known deviations as the check's failure: 'known deviation in trials 1-3 of 12 (path "y" held in 6
   * runs): path "x": <message>'. The run matches each to its entry by its own words (records()).
   */
  describe(planned?: number): string {
    const shown = this.known.map(
      ({ record: k }) =>
        `${trialsText(k.trials && [...k.trials].sort((a, b) => a - b), planned)}${k.message}`,
    );
    const others = [...this.held()].map(([name, n]) => `"${name}" held in ${n} run${n === 1 ? '' : 's'}`);
    const rest = others.length > 0 ? ` (paths ${others.join(', ')})` : '';
    const head = shown.length === 1 ? 'known deviation' : `${shown.length} known deviations`;
    return `${head}${rest}: ${shown.join('; ')}`;
  }
}

/** "in trials 1-3, 5 of 12: " (nothing outside trials). */
function trialsText(trials: readonly number[] | undefined, planned: number | undefined): string {
  if (trials === undefined || trials.length === 0) return '';
  const ranges: string[] = [];
  let start = trials[0] ?? 0;
  let end = start;
  for (const n of [...trials.slice(1), Number.NaN]) {
    if (n === end + 1) end = n;
    else {
      ranges.push(start === end ? `${start}` : `${start}-${end}`);
      start = n;
      end = n;
    }
  }
  const of = planned === undefined ? '' : ` of ${planned}`;
  return `in trial${trials.length === 1 ? '' : 's'} ${ranges.join(', ')}${of}: `;
}
