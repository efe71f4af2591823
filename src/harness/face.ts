/**
 * Everything a check may use, in one place. Suites import this module and suites/common only, so the
 * harness can change its inside without touching a check, and a reader finds the whole check API here.
 */
export type {
  ContainerConfig,
  ContainerState,
  ContainerStatus,
  CriMethod,
  CriRequest,
  CriResponse,
  PodSandboxConfig,
  PodSandboxState,
  PodSandboxStatus,
} from '../cri/types.js';
export { disarmedFirst } from '../nri/faults.js';
export { compareVersions } from '../nri/nri-version.js';
export type {
  EventMatch,
  FaultAction,
  FaultSpec,
  NriEventName,
  NriEventRecord,
  NriPod,
} from '../nri/types.js';
export { type Check, type CheckSpec, defineCheck, inSuite } from './check/check.js';
export type {
  CallOpts,
  CallResult,
  CheckContext,
  ConfigFactory,
  ContainerListItem,
  ContainerOptions,
  CreationDelay,
  FaultHandle,
  HandlerOpts,
  HostProbe,
  Injectors,
  NetnsKind,
  NriControl,
  PodOptions,
  PodSandboxListItem,
  ReachWatch,
  RetryAttempt,
  RetryOutcome,
  RetryPolicy,
  RunPodRequest,
  SlowCni,
  SlowRuntime,
  TestPlugin,
  TrialSetup,
  WaitOpts,
} from './check/context.js';
export { describeAttempts } from './check/retry.js';
export { errorMessage, skipReason } from './core/errors.js';
export { shortId } from './core/ids.js';
export { CREATE_NOT_HELD } from './core/injector-needs.js';
export { CHECK_LABEL, RUN_LABEL, TRIAL_LABEL } from './core/labels.js';
export { reservationHolders } from './core/own-ids.js';
export type { CheckSettings } from './core/settings.js';
export type { Level, Need, SuiteName, Tag } from './core/vocabulary.js';
export { notYet } from './core/waits.js';
export type { HostBaseline } from './host/host-diff.js';
export {
  describeLeaks,
  describeLeaksByOwner,
  type HostLeak,
  type PodHostSnapshot,
} from './host/host-findings.js';
export { ENDED_BY_RUNTIME_CLAUSE } from './neighbours/disturbance.js';
