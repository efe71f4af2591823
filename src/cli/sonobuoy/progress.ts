/**
 * Progress for Sonobuoy's worker sidecar: JSON POSTed to http://127.0.0.1:<port>/progress, which it relays
 * to the aggregator (`sonobuoy status --json`). Every update carries the whole state so far (no "append"
 * fields), so an update that is lost or coalesced is superseded by the next one, and the last one is
 * complete. Progress is a courtesy: it never blocks the run and never fails it.
 */
import { request } from 'node:http';

/** The fields of Sonobuoy's plugin.ProgressUpdate that a plugin sets (node and name come from the sidecar). */
export interface ProgressUpdate {
  msg: string;
  total: number;
  completed: number;
  errors: string[];
  failures: string[];
}

export const PROGRESS_PATH = '/progress';
const POST_TIMEOUT_MS = 2_000;

export interface ProgressPosterOptions {
  port: number | undefined;
  /** Told once per kind of problem, so a missing sidecar gives one line, not one per check. */
  onProblem: (text: string) => void;
  host?: string;
  timeoutMs?: number;
}

export class ProgressPoster {
  private pending: ProgressUpdate | undefined;
  private inFlight: Promise<void> | undefined;
  private readonly told = new Set<string>();
  private delivered = 0;

  constructor(private readonly opts: ProgressPosterOptions) {}

  /** Queues the update; one that is still waiting is replaced, since this one includes it. */
  send(update: ProgressUpdate): void {
    if (this.opts.port === undefined) return;
    this.pending = structuredClone(update);
    this.inFlight ??= this.drain();
  }

  /** Resolves once every queued update was posted or given up on. */
  async flush(): Promise<void> {
    for (let running = this.inFlight; running !== undefined; running = this.inFlight) await running;
  }

  /** How many updates the sidecar accepted. */
  get deliveredCount(): number {
    return this.delivered;
  }

  private async drain(): Promise<void> {
    for (let next = this.take(); next; next = this.take()) {
      const problem = await this.post(next);
      if (problem === undefined) this.delivered++;
      else if (!this.told.has(problem)) {
        this.told.add(problem);
        this.opts.onProblem(
          `progress to 127.0.0.1:${this.opts.port}${PROGRESS_PATH} not delivered (${problem}); the results are not affected`,
        );
      }
    }
    this.inFlight = undefined;
  }

  private take(): ProgressUpdate | undefined {
    const next = this.pending;
    this.pending = undefined;
    return next;
  }

  /** Resolves with undefined when accepted, else a short reason; never rejects. */
  private post(update: ProgressUpdate): Promise<string | undefined> {
    const body = JSON.stringify(update);
    return new Promise((resolve) => {
      const req = request(
        {
          host: this.opts.host ?? '127.0.0.1',
          port: this.opts.port,
          path: PROGRESS_PATH,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          timeout: this.opts.timeoutMs ?? POST_TIMEOUT_MS,
        },
        (res) => {
          res.resume();
          const code = res.statusCode ?? 0;
          res.on('end', () => resolve(code >= 200 && code < 300 ? undefined : `HTTP ${code}`));
          res.on('error', (e) => resolve(e.message));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      req.end(body);
    });
  }
}
