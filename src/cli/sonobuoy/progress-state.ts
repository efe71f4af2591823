/** The run as Sonobuoy's progress updates describe it: counts, and the names of what failed so far. */
import type { CheckResult } from '../../harness/check/result.js';
import type { ProgressUpdate } from './progress.js';

export class ProgressState {
  private total = 0;
  private completed = 0;
  private readonly failures: string[] = [];
  private readonly errors: string[] = [];

  start(total: number, msg: string): ProgressUpdate {
    this.total = total;
    return this.update(msg);
  }

  /** After every check: a failed check is a failure, a check that reached no verdict an error. */
  checkEnded(r: CheckResult): ProgressUpdate {
    this.completed++;
    const name = `${r.id} ${r.title}`;
    if (r.verdict === 'failed') this.failures.push(name);
    if (r.verdict === 'error') this.errors.push(name);
    return this.update(`${r.id} ${r.verdict} (${this.completed}/${this.total})`);
  }

  finish(msg: string): ProgressUpdate {
    return this.update(msg);
  }

  private update(msg: string): ProgressUpdate {
    return {
      msg,
      total: this.total,
      completed: this.completed,
      errors: [...this.errors],
      failures: [...this.failures],
    };
  }
}
