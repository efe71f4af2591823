/** What every check of a run shares: the connection, the run id, the sequence and what the node offers. */
import type { CriClient } from '../../cri/client.js';
import type { CriMethod } from '../../cri/types.js';
import type { HostProbe } from '../check/context.js';
import type { SharedOutcomes } from '../check/shared-outcomes.js';
import type { Sequence } from '../check/timeline.js';
import type { InjectorConfig } from '../core/injector-needs.js';
import type { OwnIds } from '../core/own-ids.js';
import type { CheckSettings } from '../core/settings.js';
import type { HookLane } from '../injectors/hook-lane.js';
import type { RegistrationGate } from '../injectors/registration-gate.js';
import type { DisturbanceMonitor } from '../neighbours/disturbance-monitor.js';
import type { RestartSpec } from '../runtime/restart.js';
import type { RestingChecks } from './resting-checks.js';

export interface RunEnv {
  runId: string;
  client: CriClient;
  sequence: Sequence;
  settings: CheckSettings;
  injectors: InjectorConfig;
  /** The NRI socket, or why NRI checks cannot run. */
  nri: { socketPath: string } | { unavailable: string };
  /** Host probes, or why [Node] checks cannot run. */
  host: HostProbe | { unavailable: string };
  /** The run's own ids as they are learnt, for the final sweep's look for processes the runtime lost. */
  ownIds?: OwnIds;
  restart?: RestartSpec;
  /** Keeps checks' plugin registrations and pod removals apart (registration-gate.ts). */
  registrations: RegistrationGate;
  /** Injector checks that hold no creation for now, which the scheduler counts as CRI-only. */
  resting?: RestingChecks;
  /** One hold of an NRI hook at a time, with nothing queued in front of it (hook-lane.ts). */
  hookLane?: HookLane;
  /** Scenarios run once and read by every check that needs them; absent, every check runs its own. */
  shared?: SharedOutcomes;
  /** Present beside another client (--beside-kubelet): lists the run's objects to spot its doing. */
  disturbance?: DisturbanceMonitor;
  /**
   * The entry of the bundled or the given deviations that names this violation of the check on this
   * runtime, by where it is written: such a violation decides its path only (check-paths.ts). Absent, none
   * is known.
   */
  knownDeviation?: (checkId: string, message: string) => string | undefined;
  /** Told as each trial of a race check ends, for the progress a long check shows while it runs. */
  onTrialEnd?: (checkId: string, done: number, planned: number) => void;
  /** The whole run's abort: SIGINT, run timeout, fail-fast. */
  signal: AbortSignal;
  /**
   * Called before every CRI call a check makes, before anything of the call is recorded. Tests use it to
   * sabotage a real runtime at a chosen step, which is how the [Node] checks are shown able to fail, and
   * to play a kubelet's stop that lands just before a check's own (kubelet-double/just-before.e2e.test.ts).
   */
  beforeCall?: (method: CriMethod, request: unknown) => Promise<void>;
}
