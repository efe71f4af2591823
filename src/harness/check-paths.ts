/**
 * The paths of a check, and the known deviations they showed. A check whose scenario takes several paths
 * (a sandbox and a container, a plugin error and a CNI failure) runs each inside t.path. A violation that
 * an entry of the bundled or the given deviations names for this check decides its path only: that path is
 * not run again, and the check goes on with its other paths, where any other violation is a plain FAIL. So
 * a known bug never hides a new one behind it.
 */
import { errorMessage, isAssertion } from './errors.js';

/** The observation that keeps a check's known deviations when another failure decided its verdict. */
export const KNOWN_DEVIATION_OBSERVATION = 'known deviation';

/** Whether an entry of the bundled or the given deviations matches this violation of the check. */
export type KnownDeviationTest = (message: string) => boolean;

interface PathRecord {
  /** Runs of the path that ended without a violation. */
  held: number;
  /** The known deviation that decided the path, and the trial it showed in (when the check runs trials). */
  deviation?: { trial: number | undefined; message: string };
}

export class CheckPaths {
  private readonly paths = new Map<string, PathRecord>();
  /** Runs left out because their path was already decided: a trial made of those asserted nothing new. */
  passedOver = 0;

  constructor(
    private readonly isKnown: KnownDeviationTest,
    private readonly note: (text: string) => void,
  ) {}

  /**
   * Runs one path of the check, unless a known deviation already decided it. A scenario that returns
   * 'not run' could not bring the runtime onto the path (the check records why): no run of it.
   */
  async run(name: string, scenario: () => Promise<unknown>, trial?: number): Promise<void> {
    const record = this.paths.get(name) ?? { held: 0 };
    this.paths.set(name, record);
    if (record.deviation) {
      this.passedOver++;
      this.note(`path "${name}" not run again: a known deviation decided it`);
      return;
    }
    try {
      if ((await scenario()) !== 'not run') record.held++;
    } catch (e) {
      // Tested as the check's failure will read, so that an entry can name the path it belongs to.
      if (!isAssertion(e) || !this.isKnown(`path "${name}": ${errorMessage(e)}`)) throw e;
      record.deviation = { trial, message: errorMessage(e) };
      this.note(`path "${name}" showed a known deviation; the check goes on with its other paths`);
    }
  }

  /** How many paths showed a known deviation (each in one run: it is not run again). */
  get deviations(): number {
    return [...this.paths.values()].filter((p) => p.deviation !== undefined).length;
  }

  /** Whether any path showed a known deviation. */
  get deviated(): boolean {
    return this.deviations > 0;
  }

  /** How many times each path ran and held (paths with a known deviation, or never run, left out). */
  held(): Map<string, number> {
    return new Map(
      [...this.paths].filter(([, p]) => p.deviation === undefined && p.held > 0).map(([n, p]) => [n, p.held]),
    );
  }

  /**
   * The known deviations as the check's failure: 'known deviation on path "x" in trial 1 of 12 (not run
   * again; path "y" held in 6 runs): <message>'. The run matches it to its entry like any failure.
   */
  describe(planned?: number): string {
    const shown = [...this.paths]
      .filter(([, p]) => p.deviation)
      .map(([name, p]) => {
        const at = p.deviation?.trial === undefined ? '' : ` in trial ${p.deviation.trial} of ${planned}`;
        return `path "${name}"${at}: ${p.deviation?.message ?? ''}`;
      });
    const others = [...this.held()].map(([name, n]) => `"${name}" held in ${n} run${n === 1 ? '' : 's'}`);
    const rest = others.length > 0 ? `other paths: ${others.join(', ')}` : 'no other path ran';
    const head = shown.length === 1 ? 'known deviation' : `known deviations on ${shown.length} paths`;
    return `${head}, each path not run again (${rest}): ${shown.join('; ')}`;
  }
}
