/**
 * Injector checks that hold no creation for a while. An injector check keeps NRI checks away because a
 * creation it holds for seconds would hold back their plugins' registrations (sharing.ts). One that waits
 * out a long bound with every delay off (IDEM-08 and IDEM-09 wait out --cache-ttl) holds nothing: while
 * it rests, the scheduler counts it as a CRI-only check that takes no place of --parallel, so NRI checks
 * fill its wait, and the hook lane's checks too where it says why held hooks change nothing it then
 * asserts (CheckSpec.restsBesideHeldHooks). Arming a delay again ends the rest, and waits until no check
 * beside it is one an injector check may not share the runtime with; no new such check starts meanwhile.
 */
import type { Check } from '../check/check.js';
import type { HoldingTurn } from '../check/context.js';
import { mayShareChecks } from '../check/sharing.js';
import { isInjectorNeed } from '../core/injector-needs.js';

export class RestingChecks {
  private readonly resting = new Set<string>();
  private running: () => readonly Check[] = () => [];
  private wake: () => void = () => undefined;
  private next = this.newChange();

  /** Called by the scheduler with what runs now. */
  watch(running: () => readonly Check[]): void {
    this.running = running;
  }

  /** Settles at the next rest, resumption or end of a check: the scheduler and waiting resumes look again. */
  changed(): Promise<void> {
    return this.next;
  }

  /** A check ended: it rests no more, and the checks waiting to resume look again. */
  ended(check: Check): void {
    this.resting.delete(check.id);
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.next = this.newChange();
    wake();
  }

  isResting(c: Check): boolean {
    return this.resting.has(c.id);
  }

  /**
   * The check as the scheduler counts it now: a resting injector check counts as CRI-only, beside the hook
   * lane where it says why held hooks change nothing it still asserts.
   */
  asScheduled(c: Check): Check {
    if (!this.resting.has(c.id)) return c;
    const besideHeldHooks = c.besideHeldHooks || c.restsBesideHeldHooks;
    return { ...c, needs: c.needs.filter((n) => !isInjectorNeed(n)), besideHeldHooks };
  }

  turnFor(check: Check): HoldingTurn {
    return {
      rest: () => {
        this.resting.add(check.id);
        this.notify();
      },
      resume: async (signal) => {
        if (!this.resting.delete(check.id)) return;
        this.notify();
        const gone = aborted(signal);
        while (!signal.aborted && !this.mayHoldBeside(check)) await Promise.race([this.changed(), gone]);
      },
    };
  }

  private mayHoldBeside(check: Check): boolean {
    return this.running().every((r) => r.id === check.id || mayShareChecks(check, this.asScheduled(r)));
  }

  private newChange(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
