/**
 * Watches the runtime across a run for crashes. A runtime that crashes during a check makes that check an
 * ERROR, which is right for the check, but the crash is a finding of its own: the run reports it, with the
 * check it happened in, and fails (exit 1). After each check the watch asks whether the runtime still
 * answers and whether the same socket still serves it: a runtime restarted by its service manager serves
 * on a new socket. A restart the check asked for (--restart-cmd) is no crash.
 */
import type { CriClient } from '../../cri/client.js';
import type { RuntimeCrash } from '../check/result.js';
import { servingSocket } from './runtime-identity.js';

const VERSION_PROBE_MS = 2_000;

export class RuntimeWatch {
  /** The listening socket seen last; undefined where it cannot be known (a remote endpoint). */
  private serving: string | undefined;
  private down = false;
  private readonly running = new Set<string>();
  readonly crashes: RuntimeCrash[] = [];

  constructor(
    private readonly client: CriClient,
    private readonly endpoint: string,
  ) {}

  async start(): Promise<void> {
    this.serving = await this.look();
  }

  checkStarted(checkId: string): void {
    this.running.add(checkId);
  }

  /** The runtime was restarted on purpose: what serves it now is the new normal. */
  async restarted(): Promise<void> {
    this.serving = await this.look();
  }

  /** Looks after a check; returns the crash it saw, also kept in `crashes`. */
  async checkEnded(checkId: string): Promise<RuntimeCrash | undefined> {
    const beside = [...this.running].filter((id) => id !== checkId);
    const answers = await this.client
      .call('Version', { version: 'v1' }, { deadlineMs: VERSION_PROBE_MS })
      .then(
        () => true,
        () => false,
      );
    // Read after the others ended their look: a check still running holds its place until its own end.
    this.running.delete(checkId);
    if (!answers) {
      if (this.down) return undefined;
      this.down = true;
      return this.record(checkId, beside, 'the runtime stopped answering (Version got no reply)');
    }
    const now = await this.look();
    const wasDown = this.down;
    this.down = false;
    const before = this.serving;
    this.serving = now;
    // Back after a crash this watch already reported: the same crash.
    if (wasDown || before === undefined || now === undefined || before === now) return undefined;
    return this.record(
      checkId,
      beside,
      `the runtime restarted on its own: its socket is served anew (listening socket inode ${before}, now ${now})`,
    );
  }

  private record(check: string, beside: string[], evidence: string): RuntimeCrash {
    const crash: RuntimeCrash = { check, beside, evidence };
    this.crashes.push(crash);
    return crash;
  }

  private async look(): Promise<string | undefined> {
    const socket = await servingSocket(this.endpoint);
    return 'unknown' in socket ? undefined : socket.inodes.join(',');
  }
}
