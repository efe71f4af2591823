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
  /** --nri-request-timeout: the runtime's plugin request timeout, used only when it sends none in Configure. */
  nriRequestTimeoutMs: number;
  /** Whether --nri-request-timeout (or its variable or config key) was given, rather than its default. */
  nriRequestTimeoutGiven?: boolean;
  runtimeHandler: string;
  slowRuntimeHandler?: string;
  slowRuntimeDir?: string;
  slowCniDir?: string;
  testImage: string;
  pauseImage: string;
  /** The user named the pause image (flag, env, config file); else a private instance uses the node's own. */
  pauseImageNamed?: boolean;
  pull: PullPolicy;
  /** A docker config whose credentials the run's pulls send (--pull-auth-file). */
  pullAuthFile?: string;
  restartCmd?: string;
  restartTimeoutMs: number;
  cacheTtlMs: number;
  trials: number;
  /** Trials of one race check at once (--parallel-trials); a check may take fewer (CheckSpec.trials). */
  parallelTrials: number;
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
  /** The daemon log of the private instance (--isolated) the run talks to, for messages about its setup. */
  privateInstanceLog?: string;
  /**
   * Where the runtime pins network namespaces besides /run/netns (a private CRI-O's namespaces_dir):
   * host probes look there too.
   */
  netnsDirs?: readonly string[];
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
  /** The private instance's bridge subnet (--isolated-subnet), instead of a free 10.214.N.0/24. */
  isolatedSubnet?: string;
  /** The flags as the user gave them, for the report's properties. */
  flagsText: string;
}

/** The part of the configuration a check may read. */
export interface CheckSettings {
  /** The runtime's plugin request timeout: as it sent it in Configure, else --nri-request-timeout. */
  nriRequestTimeoutMs: number;
  /** Where nriRequestTimeoutMs comes from, for the messages that quote it. */
  nriRequestTimeoutFrom: NriTimeoutSource;
  /** Added to bounds that come from a runtime timeout (scheduling noise, not slack for the runtime). */
  marginMs: number;
  trials: number;
  /** --parallel-trials: how many trials of a race check run side by side at most. */
  parallelTrials: number;
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

/** --trials when none is given: what a run without the flag ran, and what its reproduce command says. */
export const DEFAULT_TRIALS = 20;
/** --parallel-trials when none is given (README: how it was chosen). */
export const DEFAULT_PARALLEL_TRIALS = 4;

export type NriTimeoutSource = 'sent by the runtime in Configure' | '--nri-request-timeout';

/**
 * The plugin request timeout the checks' bounds come from. A runtime that sends its timeouts in Configure
 * (NRI v0.7+) says what it does, so that wins over the flag; the flag stands in for a runtime that sends
 * none (containerd 1.7's NRI 0.6).
 */
export function nriRequestTimeoutOf(
  c: Pick<RunConfig, 'nriRequestTimeoutMs'>,
  sent: { requestMs: number } | undefined,
): { ms: number; from: NriTimeoutSource } {
  return sent && sent.requestMs > 0
    ? { ms: sent.requestMs, from: 'sent by the runtime in Configure' }
    : { ms: c.nriRequestTimeoutMs, from: '--nri-request-timeout' };
}

/**
 * @param learnt what readiness learnt of the runtime: the cgroup parent it chose for the runtime's cgroup
 *   driver, and the NRI timeouts the runtime sent in Configure (absent when it sent none)
 */
export function checkSettingsOf(
  c: RunConfig,
  learnt: { cgroupParent: string; nriTimeouts?: { requestMs: number } | undefined },
): CheckSettings {
  const requestTimeout = nriRequestTimeoutOf(c, learnt.nriTimeouts);
  return {
    nriRequestTimeoutMs: requestTimeout.ms,
    nriRequestTimeoutFrom: requestTimeout.from,
    marginMs: MARGIN_MS,
    trials: c.trials,
    parallelTrials: c.parallelTrials,
    cacheTtlMs: c.cacheTtlMs,
    runtimeHandler: c.runtimeHandler,
    testImage: c.testImage,
    pauseImage: c.pauseImage,
    restartTimeoutMs: c.restartTimeoutMs,
    callTimeoutMs: c.callTimeoutMs,
    cgroupParent: learnt.cgroupParent,
  };
}
