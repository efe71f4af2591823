/**
 * Everything a check may use, in one place. Suites import this module and suites/common only, so the
 * harness can change its inside without touching a check, and a reader finds the whole check API here.
 */
export type {
  ContainerConfig,
  ContainerState,
  ContainerStatus,
  PodSandboxConfig,
  PodSandboxState,
  PodSandboxStatus,
} from '../cri/types.js';
export { compareVersions } from '../nri/nri-version.js';
export type {
  EventMatch,
  FaultAction,
  FaultSpec,
  NriEventName,
  NriEventRecord,
  NriPod,
} from '../nri/types.js';
export { type Check, type CheckSpec, defineCheck, inSuite } from './check.js';
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
  RetryAttempt,
  RetryOutcome,
  RetryPolicy,
  RunPodRequest,
  SlowCni,
  SlowRuntime,
  TestPlugin,
  TrialSetup,
  WaitOpts,
} from './context.js';
export { ENDED_BY_RUNTIME_CLAUSE } from './disturbance.js';
export { errorMessage, skipReason } from './errors.js';
export type { HostBaseline } from './host-diff.js';
export { describeLeaks, type HostLeak, type PodHostSnapshot } from './host-findings.js';
export { shortId } from './ids.js';
export { CREATE_NOT_HELD } from './injector-needs.js';
export { CHECK_LABEL, RUN_LABEL, TRIAL_LABEL } from './labels.js';
export { describeAttempts } from './retry.js';
export type { CheckSettings } from './settings.js';
export type { Level, Need, SuiteName, Tag } from './vocabulary.js';
export { notYet } from './waits.js';
