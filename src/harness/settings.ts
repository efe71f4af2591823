/** The resolved configuration of a run. The CLI builds it from flags, env and files; nothing else reads those. */
import type { SuiteName } from './vocabulary.js';

export type LevelFilter = 'must' | 'should' | 'all';
export type PullPolicy = 'never' | 'missing' | 'always';

export interface RunConfig {
  runtimeEndpoint: string;
  imageEndpoint: string;
  /** Default deadline of CRI calls that a check does not race on purpose. */
  callTimeoutMs: number;
  nriSocket: string;
  requireNri: boolean;
  nriRequestTimeoutMs: number;
  runtimeHandler: string;
  slowRuntimeHandler?: string;
  slowRuntimeDir?: string;
  slowCniDir?: string;
  testImage: string;
  pauseImage: string;
  pull: PullPolicy;
  restartCmd?: string;
  restartTimeoutMs: number;
  cacheTtlMs: number;
  trials: number;
  parallel: number;
  checkTimeoutMs: number;
  runTimeoutMs?: number;
  failFast: boolean;
  flakeAttempts: number;
  focus?: RegExp;
  skip?: RegExp;
  suites: readonly SuiteName[];
  level: LevelFilter;
  slow: boolean;
  nodeProbes: 'auto' | 'on' | 'off';
  /**
   * From a pod of its own: a process in the node's mount namespace, through which host probes read the
   * node's files and mounts (node-view.ts). Set by a private instance started from a pod.
   */
  nodeAnchorPid?: number;
  /** The pods' cgroup parent (--cgroup-parent); absent, one of the tool's own in the runtime's driver. */
  cgroupParent?: string;
  /** Run although a kubelet drives the runtime (--beside-kubelet); see kubelet-detect.ts. */
  besideKubelet?: boolean;
  reportDir: string;
  reportPrefix: string;
  junitFile?: string;
  jsonFile?: string;
  expectedDeviations?: string;
  /** Stale --expected-deviations entries fail the run (exit 1) instead of only warning. */
  strictDeviations?: boolean;
  /** Run against a private instance of the node's runtime (src/instance) instead of the runtime itself. */
  isolated?: boolean;
  /** The flags as the user gave them, for the report's properties. */
  flagsText: string;
}

/** The part of the configuration a check may read. */
export interface CheckSettings {
  nriRequestTimeoutMs: number;
  /** Added to bounds that come from a runtime timeout (scheduling noise, not slack for the runtime). */
  marginMs: number;
  trials: number;
  cacheTtlMs: number;
  runtimeHandler: string;
  testImage: string;
  pauseImage: string;
  restartTimeoutMs: number;
  callTimeoutMs: number;
  /** Every pod's `linux.cgroup_parent` (cgroup-parent.ts). */
  cgroupParent: string;
}

export const MARGIN_MS = 3_000;

/** @param cgroupParent the parent readiness chose for the runtime's cgroup driver */
export function checkSettingsOf(c: RunConfig, cgroupParent: string): CheckSettings {
  return {
    nriRequestTimeoutMs: c.nriRequestTimeoutMs,
    marginMs: MARGIN_MS,
    trials: c.trials,
    cacheTtlMs: c.cacheTtlMs,
    runtimeHandler: c.runtimeHandler,
    testImage: c.testImage,
    pauseImage: c.pauseImage,
    restartTimeoutMs: c.restartTimeoutMs,
    callTimeoutMs: c.callTimeoutMs,
    cgroupParent,
  };
}
