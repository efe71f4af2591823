/**
 * A runtime instance the run starts for itself and removes at its end (`--isolated`: a private copy of the
 * node's runtime, src/instance). The run only sees the settings that point at it and the record the report
 * keeps; checks never see it. Starting it is the caller's (the CLI passes src/instance's starter in).
 */
import type { RunConfig } from './core/settings.js';

/** The marks of the run's pods, by which an instance's leftovers are known without its record. */
export { NAME_PREFIX, POD_NAMESPACE } from './core/labels.js';
export { type SocketIdentity, sameRuntime, socketIdentity } from './core/socket-identity.js';
/** A container cgroup left frozen (runc's systemd driver killed mid-freeze) is thawed so it can empty. */
export { thawCgroupDir } from './host/frozen-cgroups.js';
/** Where the node's files and mounts are; an instance started from a pod reads the node through it. */
export { NodeView } from './host/node-view.js';
/** An instance's owner is a run's process, judged as a run's pod log folder's owner is. */
export { currentOwner, ownerGone, type RunOwner } from './host/run-owner.js';

/** The run settings that name the instance instead of the node's runtime. */
export type InstanceSettings = Pick<
  RunConfig,
  | 'runtimeEndpoint'
  | 'imageEndpoint'
  | 'nriSocket'
  | 'nriRequestTimeoutMs'
  | 'slowRuntimeHandler'
  | 'slowRuntimeDir'
  | 'slowCniDir'
  | 'restartCmd'
  | 'pauseImage'
  | 'nodeAnchorPid'
  | 'privateInstanceLog'
  | 'netnsDirs'
>;

/** What the report records about a private instance. */
export interface InstanceRecord {
  /** The node's runtime it copies: its endpoint and the daemon serving it. */
  target: string;
  binary: { path: string; version: string; sha256: string };
  /** The config file the node's daemon was started with, or what it read by default. */
  sourceConfig: string;
  /** Every setting the private config holds differently from the node's effective config. */
  changed: Array<{ key: string; from: string | null; to: string | null }>;
  dir: string;
  network: { bridge: string; subnet: string };
  images: string;
  /** What the run said about its images (where each came from, stand-ins, pulls). */
  imageNotes?: string[];
  timingsMs: { start: number; imageImport: number; removal?: number };
  /** What could not be removed at the end; empty when the host holds nothing of it any more. */
  leftovers?: string[];
}

export interface RuntimeInstance {
  readonly settings: InstanceSettings;
  readonly record: InstanceRecord;
  /** Removes it and everything it made on the host; resolves with what is still there. */
  remove(): Promise<string[]>;
}

export interface InstanceRequest {
  /** The node runtime's CRI endpoint, as the user gave it. */
  endpoint: string;
  testImage: string;
  pauseImage: string;
  /** Whether the user named the pause image; otherwise the instance uses the node's own sandbox image. */
  pauseImageNamed: boolean;
  pull: RunConfig['pull'];
  /** The private bridge's subnet the user named (--isolated-subnet); otherwise a free 10.214.N.0/24. */
  subnet?: string;
  signal: AbortSignal;
}

export type StartInstance = (request: InstanceRequest) => Promise<RuntimeInstance>;

/**
 * After an interrupt, how long the run may wind down on the instance (release holds, end its checks, write
 * what it has) before the instance is removed under it: the removal ends whatever is still on the
 * instance, so an interrupted run is bounded by this plus the removal's own bound (removal.ts).
 */
export const WIND_DOWN_MS = 15_000;

/**
 * Runs `body` against a fresh private instance and removes the instance whatever happens; the config
 * `body` gets points at the instance. The record is completed with the removal's time and leftovers.
 */
export async function onPrivateInstance<T>(
  config: RunConfig,
  start: StartInstance,
  signal: AbortSignal,
  body: (config: RunConfig, record: InstanceRecord) => Promise<T>,
): Promise<{ value: T; record: InstanceRecord }> {
  const instance = await start({
    endpoint: config.runtimeEndpoint,
    testImage: config.testImage,
    pauseImage: config.pauseImage,
    pauseImageNamed: config.pauseImageNamed === true,
    pull: config.pull,
    ...(config.isolatedSubnet === undefined ? {} : { subnet: config.isolatedSubnet }),
    signal,
  });
  const record = instance.record;
  let removal: Promise<void> | undefined;
  const remove = () => {
    removal ??= (async () => {
      const started = performance.now();
      record.leftovers = await instance.remove();
      record.timingsMs.removal = Math.round(performance.now() - started);
    })();
    return removal;
  };
  let windDown: NodeJS.Timeout | undefined;
  const onAbort = () => {
    windDown = setTimeout(() => void remove(), WIND_DOWN_MS);
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    const value = await body({ ...config, ...instance.settings }, record);
    return { value, record };
  } catch (e) {
    throw withInstanceRecord(e, record);
  } finally {
    signal.removeEventListener('abort', onAbort);
    clearTimeout(windDown);
    await remove();
  }
}

const recordsOfErrors = new WeakMap<object, InstanceRecord>();

/**
 * Marks an error as one that ended a run whose private instance had been started, so that the report of a
 * run that never reached a check still says what the instance was and what its removal left.
 */
export function withInstanceRecord(e: unknown, record: InstanceRecord): unknown {
  if (typeof e === 'object' && e !== null) recordsOfErrors.set(e, record);
  return e;
}

/** The private instance a failed run had started, when it had. */
export function instanceRecordOf(e: unknown): InstanceRecord | undefined {
  return typeof e === 'object' && e !== null ? recordsOfErrors.get(e) : undefined;
}
