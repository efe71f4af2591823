/**
 * Learns the ids of the run's own containerd records as containerd makes them. A build the runtime
 * abandons before any reply or refusal names it (a RunPodSandbox retry cut off as its shim starts,
 * docs/upstream/containerd-IDEM-14.md) can leave a shim whose id the run would never learn otherwise; with
 * it, the final sweep and `cleanup` stop that shim as the run's own. A record counts as the run's only
 * while it carries every mark of the run's, read the moment containerd reports it.
 */
import { GRPC_UNIMPLEMENTED } from '../../nri/grpc-codes.js';
import { hasOurMarks } from '../core/labels.js';
import { sleep } from '../core/waits.js';

/** After the stream broke (a restarted containerd), subscribe again this much later. */
const RESUBSCRIBE_MS = 500;

export class CreationWatch {
  private readonly stopping = new AbortController();
  private readonly done: Promise<void>;

  private constructor(
    private readonly endpoint: string,
    private readonly runId: string,
    private readonly learn: (id: string) => void,
  ) {
    this.done = this.follow();
  }

  /** Watches from now on; a runtime that is not containerd ends the watch at once, quietly. */
  static start(endpoint: string, runId: string, learn: (id: string) => void): CreationWatch {
    return new CreationWatch(endpoint, runId, learn);
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.done;
  }

  private async follow(): Promise<void> {
    const { signal } = this.stopping;
    // Loaded on use: suites import this module's users, and grpc would slow down `list` and `--help`.
    const [{ containerCreations }, { ContainerdNativeError }] = await Promise.all([
      import('../../cri/containerd-events.js'),
      import('../../cri/containerd-api.js'),
    ]);
    while (!signal.aborted) {
      try {
        for await (const made of containerCreations(this.endpoint, signal)) {
          // One gone before it could be read may have been anyone's: it is left out.
          if (made.labels && hasOurMarks(made.labels, this.runId)) this.learn(made.id);
        }
      } catch (e) {
        if (e instanceof ContainerdNativeError && e.status === GRPC_UNIMPLEMENTED) return;
      }
      await sleep(RESUBSCRIBE_MS, signal).catch(() => undefined);
    }
  }
}
