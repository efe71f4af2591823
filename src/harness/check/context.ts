/**
 * What a check sees: `t`. Everything a check creates goes through here, so it is labelled, tracked,
 * cleaned up and written to the check's timeline without a line of cleanup code in the check.
 */
import type {
  ContainerConfig,
  ContainerStatus,
  CriMethod,
  CriRequest,
  CriResponse,
  PodSandboxConfig,
  PodSandboxStatus,
} from '../../cri/types.js';
import type { FaultHandle } from '../../nri/faults.js';
import type { EventMatch, FaultSpec, NriEventName, NriEventRecord, NriPod } from '../../nri/types.js';

import type { CheckSettings } from '../core/settings.js';
import type { Probe } from '../core/waits.js';
import type { HostBaseline, TrialClues } from '../host/host-diff.js';
import type { HostLeak, PodHostSnapshot } from '../host/host-findings.js';

/** A check drives its faults through the plugin's own handles. */
export type { FaultHandle };

export interface CallOpts {
  deadlineMs?: number;
  signal?: AbortSignal;
  /** The runtime's copy of the deadline expires first; the client cancels this much later (see CallOptions). */
  cancelLateByMs?: number;
  /**
   * StopContainer only: the container's workload ignores TERM, so only the kill at the end of a grace ends
   * it. Beside a kubelet an exit before this call's own grace ran out shows that another stop was under way.
   */
  ignoresTerm?: boolean;
}

export type HandlerOpts = CallOpts & { runtimeHandler?: string };

export type RunPodRequest = CriRequest<'RunPodSandbox'>;

/** A CRI call's outcome when the check wants to look at failures instead of failing on them. */
export type CallResult<T> =
  | { ok: true; value: T; latencyMs: number }
  | { ok: false; code: string; codeNumber: number; message: string; latencyMs: number };

export interface RetryAttempt {
  attempt: number;
  code: string;
  message: string;
  latencyMs: number;
}

export interface RetryOutcome<T> {
  /** Set when an attempt succeeded within the budget. */
  value?: T;
  attempts: RetryAttempt[];
  /**
   * Set when the retries went on past the budget while the runtime was still settling the timed-out
   * request (RetryPolicy.settleMs): how long they went on.
   */
  settlingMs?: number;
  /**
   * Set when an attempt was cut off by its own deadline while the runtime worked on it, and later ones were
   * given longer (RetryPolicy.growDeadlineToMs): the longest deadline given.
   */
  grownDeadlineMs?: number;
}

export interface RetryPolicy {
  /** Each attempt's own client deadline. */
  attemptDeadlineMs: number;
  /** Give up after this long overall. */
  budgetMs: number;
  /**
   * Kept back from an attempt's deadline for one more attempt, while the budget left is more than twice
   * this: a runtime may hold a retry that finds the build in progress until that retry's deadline, and hand
   * the build to the next one (CRI-O), so the budget must hold a next one. 0 when not given.
   */
  nextAttemptMs?: number;
  /** First back-off; doubles each attempt up to maxBackoffMs (kubelet-like). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /**
   * Past the budget, up to this much more while the runtime lists nothing under the request's name: it
   * is still building or rolling back the timed-out request, so it has neither converged nor broken the
   * contract yet (a loaded node's rollback takes seconds). Ends as soon as something is listed. 0 when
   * not given.
   */
  settleMs?: number;
  /**
   * An attempt cut off by its own deadline while the runtime still worked on it leaves that build holding
   * the name, as the timed-out request did, and a kubelet, whose calls have minutes, would have waited for
   * it: the next attempt gets twice that deadline, up to this, and the retries go on long enough to give it
   * that. 0 when not given.
   */
  growDeadlineToMs?: number;
}

/** CRI access that labels, tracks and records. Helpers without `try` assert success. */
export interface TrackedCri {
  call<M extends CriMethod>(method: M, request: CriRequest<M>, opts?: CallOpts): Promise<CriResponse<M>>;
  tryCall<M extends CriMethod>(
    method: M,
    request: CriRequest<M>,
    opts?: CallOpts,
  ): Promise<CallResult<CriResponse<M>>>;
  /** Sends the identical request again and again, kubelet-like, until it succeeds or the budget ends. */
  retry<M extends CriMethod>(
    method: M,
    request: CriRequest<M>,
    policy: RetryPolicy,
  ): Promise<RetryOutcome<CriResponse<M>>>;

  /** The RunPodSandbox request for `config`; an empty or absent handler means the run's handler. */
  runPodRequest(config: PodSandboxConfig, runtimeHandler?: string): RunPodRequest;
  runPod(config: PodSandboxConfig, opts?: HandlerOpts): Promise<string>;
  /** RunPodSandbox whose failure the check looks at; the reply carries the sandbox id. */
  tryRunPod(config: PodSandboxConfig, opts?: HandlerOpts): Promise<CallResult<string>>;
  stopPod(podId: string, opts?: CallOpts): Promise<void>;
  removePod(podId: string, opts?: CallOpts): Promise<void>;
  podStatus(podId: string): Promise<PodSandboxStatus>;
  /**
   * The sandbox's state, or 'GONE' when PodSandboxStatus answers NOT_FOUND. Any other error throws: a
   * failed status call is no proof that the sandbox went away.
   */
  podStateOrGone(podId: string): Promise<string>;
  /** As podStateOrGone, for a container. */
  containerStateOrGone(containerId: string): Promise<string>;
  /** Sandboxes of this check (by the check label), optionally narrowed by metadata name. */
  listPods(filter?: {
    name?: string;
    state?: 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
  }): Promise<PodSandboxListItem[]>;
  createContainer(
    podId: string,
    config: ContainerConfig,
    podConfig: PodSandboxConfig,
    opts?: CallOpts,
  ): Promise<string>;
  startContainer(containerId: string, opts?: CallOpts): Promise<void>;
  stopContainer(containerId: string, timeoutS: number, opts?: CallOpts): Promise<void>;
  removeContainer(containerId: string, opts?: CallOpts): Promise<void>;
  containerStatus(containerId: string): Promise<ContainerStatus>;
  listContainers(filter?: { podId?: string; name?: string }): Promise<ContainerListItem[]>;
  /** Runs a pod and one started container from the test image: the common starting point. */
  runPodWithContainer(
    name: string,
    opts?: {
      command?: string[];
      pod?: PodOptions;
      container?: ContainerOptions;
      /**
       * The workload ends by itself, as the check means it to: beside a kubelet its exit still cannot be
       * told from the kubelet's stop, and the check's ERROR says so.
       */
      exitsByItself?: boolean;
    },
  ): Promise<{ podId: string; containerId: string; podConfig: PodSandboxConfig }>;
}

export interface PodSandboxListItem {
  id: string;
  name: string;
  attempt: number;
  uid: string;
  state: string;
  labels: Record<string, string>;
}

export interface ContainerListItem {
  id: string;
  podSandboxId: string;
  name: string;
  attempt: number;
  state: string;
  labels: Record<string, string>;
}

export interface PodOptions {
  /** Network namespace on the node (no CNI). */
  hostNetwork?: boolean;
  /** 'CONTAINER' makes each container's entrypoint PID 1 of its own pid namespace. */
  pidMode?: 'POD' | 'CONTAINER';
  attempt?: number;
  uid?: string;
  labels?: Record<string, string>;
}

export interface ContainerOptions {
  command?: string[];
  attempt?: number;
  labels?: Record<string, string>;
  pidMode?: 'POD' | 'CONTAINER';
}

/** Builds labelled configs; names get the run's prefix so they never collide with anything else. */
export interface ConfigFactory {
  /** A fresh pod config; `name` gets the run prefix and a unique token, so two calls never collide. */
  pod(name: string, opts?: PodOptions): PodSandboxConfig;
  container(name: string, opts?: ContainerOptions): ContainerConfig;
}

/** A plugin registered for this check only; closed when the check ends. */
export interface TestPlugin {
  readonly label: string; // "<index>-<name>"
  readonly runtime: { name: string; version: string; nriVersion: string; requestTimeoutMs: number };
  readonly synchronized: { pods: NriPod[] };
  events(match?: EventMatch): NriEventRecord[];
  waitFor(match: EventMatch, opts: { withinMs: number; what: string }): Promise<NriEventRecord>;
  fault(spec: FaultSpec): FaultHandle;
  isConnected(): boolean;
  /**
   * Resolves when the runtime closes the connection; `undefined` if it is still open after withinMs, a
   * window that then counts as a required wait.
   */
  waitDisconnected(opts: { withinMs: number }): Promise<Error | undefined>;
  /** Registers again after a disconnect, keeping label, events and recorded history. */
  reconnect(): Promise<void>;
}

export interface NriControl {
  /** False when the run has no NRI socket; then plugin() skips the check with the reason. */
  readonly available: boolean;
  /**
   * Registers a plugin that sees the caller's pods: inside a trial the trial's (and it goes with the
   * trial), else the check's. `forAllTrials` registers one for the whole check even from inside a trial.
   * `registeredWithinMs` bounds the wait for its registration and Synchronize (default: nri-control.ts).
   */
  plugin(opts: {
    index: string;
    events: readonly NriEventName[];
    name?: string;
    forAllTrials?: boolean;
    registeredWithinMs?: number;
  }): Promise<TestPlugin>;
  /** Every event of this check's pods, across plugins, by global sequence. */
  events(match?: EventMatch): NriEventRecord[];
  /**
   * Also records events that name one of these pod or container ids, whatever labels they carry: ids the
   * check targets that belong to no labelled pod (a removed sandbox, an id that never existed).
   */
  watchIds(ids: readonly string[]): void;
}

/** What a path that should be a pod's network namespace turned out to be. */
export type NetnsKind = 'netns' | 'not-a-namespace' | 'absent';

export interface HostProbe {
  /** False when host probes are off or impossible; every method then skips the check with the reason. */
  readonly available: boolean;
  /** Why host probes are unavailable (the reason every method skips with); undefined when available. */
  readonly whyUnavailable?: string;
  /** Takes what the host holds for a live pod: processes, cgroups, netns, mounts, shims, runtime records. */
  snapshot(podId: string, containerIds?: string[]): Promise<PodHostSnapshot>;
  /** What of the snapshot is still on the host; waits out slow zombie reaping before calling it a leak. */
  leftovers(snapshot: PodHostSnapshot, opts?: ReapingGrace): Promise<HostLeak[]>;
  /**
   * What the host and the runtime's own records still hold for these ids, found without a snapshot:
   * processes that name an id (cgroup or command line) and the runtime's containers and tasks. Used to
   * tell an object the runtime merely hides from the CRI from one it really let go.
   */
  stillHeld(ids: readonly string[]): Promise<HostLeak[]>;
  /** Whether `path` is a namespace (an nsfs inode, as a bind-mounted netns is), another file, or absent. */
  netnsKind(path: string): NetnsKind;
  /** What the host holds now (processes, netns, mounts), to diff a trial against; needs no ids. */
  baseline(): Promise<HostBaseline>;
  /**
   * Network namespaces that processes of these ids live in now (path -> id), to blame them later. With
   * the trial's baseline, processes alive at it are passed over (the ids' processes started after it).
   */
  netnsOwners(ids: readonly string[], baseline?: HostBaseline): Map<string, string>;
  /** Ids of the runtime's own records carrying all these labels; [] when the runtime has no such API. */
  recordIds(labels: Readonly<Record<string, string>>): Promise<string[]>;
  /**
   * What appeared since the baseline and belongs to the trial (its ids, the runtime's records with the
   * labels, netns by owner), after waiting out slow zombie reaping. Unrelated host activity is never blamed.
   */
  newLeftovers(
    baseline: HostBaseline,
    evidence: TrialClues & { labels: Readonly<Record<string, string>> },
    opts?: ReapingGrace,
  ): Promise<HostLeak[]>;
}

/** How a leak probe waits for the runtime to reap what its first look found. */
export interface ReapingGrace {
  /** How long the runtime has (default REAP_GRACE_MS). */
  withinMs?: number;
  /**
   * Runs the wait, which starts only once a first look found something left: the harness sets it so that
   * a trial rests meanwhile (trial-places.ts). By default it just waits.
   */
  rest?: <T>(wait: () => Promise<T>) => Promise<T>;
}

export interface SlowRuntime {
  readonly handler: string;
  setDelay(ms: number): Promise<void>;
  /** Container ids the wrapper was asked to create since the check started (a sandbox id = its pause id). */
  createdIds(): Promise<string[]>;
  /** Watches for the caller's next create from now on (ReachWatch). */
  watchReach(): ReachWatch;
}

/**
 * Whether a request sent after the watch began has reached the delay, and when (performance.now()'s
 * clock). The slow runtime handler logs each create with its time before it sleeps, so a read after the
 * request ended knows; 'untimed' when the wrapper's line has no time the tool can read.
 */
export type ReachWatch = () => Promise<{ atMs: number } | 'not reached' | 'untimed'>;

export interface SlowCni {
  setDelay(ms: number): Promise<void>;
  /**
   * Sandbox ids the wrapper got a CNI DEL for since the check started, one entry per DEL; empty when the
   * wrapper keeps no `del.log` (an older or foreign wrapper cannot count).
   */
  deletedIds(): Promise<string[]>;
  /** Makes every ADD fail (after the real plugin ran) until switched off; reset when the check ends. */
  setFail(fail: boolean): Promise<void>;
  /** Netns the wrapper set up since the check started, and the sandbox (CNI container) id of each. */
  added(): Promise<Map<string, string>>;
}

/** A delay that holds sandbox creation in one place: the runtime's create, or network setup. */
export interface CreationDelay {
  name: string;
  /** The handler the request must name for the delay to act ('' = the run's default handler). */
  runtimeHandler: string;
  setDelay(ms: number): Promise<void>;
  /** There when the delay logs what it holds (the slow runtime does; the slow CNI does not). */
  createdIds?: () => Promise<string[]>;
}

/** How a check rests from its injectors and resumes (Injectors.doneHolding; run/resting-checks.ts). */
export interface HoldingTurn {
  rest(): void;
  /** Resolves once the check may hold creations again: at once unless it rests. */
  resume(signal: AbortSignal): Promise<void>;
}

export interface Injectors {
  /** The slow runtime handler, or skips the check with how to configure it. */
  slowRuntime(): SlowRuntime;
  slowCni(): SlowCni;
  /**
   * For a variant that runs only where the run offers the injector: undefined when it does (the check may
   * then use it without declaring it as a need), else why not (a check would skip with that).
   */
  offers(need: 'slow-runtime' | 'slow-cni'): string | undefined;
  /**
   * Why the slow runtime handler cannot hold a CreateContainer here, when the run's injector proof found
   * so before the checks began (the runtime runs the OCI create at StartContainer); else undefined.
   */
  createNotHeld(): string | undefined;
  /** Whichever creation delay is configured (slow runtime first), or skips. */
  creationDelay(): CreationDelay;
  /**
   * Every configured creation delay, one per path a timeout can land on (runtime create, network setup),
   * or skips when none is configured.
   */
  creationDelays(): CreationDelay[];
  /**
   * The check holds no creation from now on (every delay is off and the builds it held have ended), as
   * while it waits out a long bound: NRI checks may run beside it until it arms a delay or failure again,
   * which then waits until they are done (run/resting-checks.ts).
   */
  doneHolding(): void;
}

/** What a trial of t.trials gets when the check builds its objects with `build`. */
export interface TrialSetup<P> {
  /** What `build` made for this trial: ahead, during the trial before, or at the trial's start. */
  readonly built: P;
  /**
   * Starts building the next trial's objects now. Call it once the trial has nothing left to race and only
   * waits (out a hook it holds, over a window it watches): the build's calls would otherwise compete with the
   * trial's own. Cleanup between the trials spares what it builds. Does nothing in the last trial or when
   * called again.
   */
  buildNext(): void;
}

export interface WaitOpts {
  withinMs: number;
  what: string;
}

/**
 * `C`: the ids of the check's clauses (CheckSpec.clauses). Every assertion names the clause it checks, so a
 * failure says which part of the contract broke, and the self-test can tell which mutant proves which part.
 */
export interface CheckContext<C extends string = string> {
  readonly id: string;
  readonly settings: CheckSettings;
  readonly signal: AbortSignal;
  readonly cri: TrackedCri;
  readonly make: ConfigFactory;
  readonly nri: NriControl;
  readonly host: HostProbe;
  readonly inject: Injectors;
  /** A narrative step for the timeline ("By" in cri-tools). */
  step(text: string): void;
  /** Records an observed value (JUnit property); OBSERVE checks use only this. */
  observe(key: string, value: string | number | boolean): void;
  /**
   * A part of the contract the check could not test here ("host part": no host probes), while it goes on
   * with the rest. A PASS then says so in its verdict line ("PASS (host part not run: <why>)"). Said
   * again for the same part (in each trial), it is recorded once, with the first reason.
   */
  notRun(part: string, why: string): void;
  /** Ends the check as skipped with a reason that says how to enable it. */
  skip(reason: string): never;
  /**
   * A setup wait: polls `probe` every `everyMs` (default 50) until it returns a value other than
   * undefined/false/notYet(seen). Running out of time is an ERROR (the scenario never came about), never a
   * FAIL; its message ends with what the last look saw (return notYet(seen) to say it).
   */
  poll<T>(probe: Probe<T>, opts: WaitOpts & { everyMs?: number }): Promise<T>;
  /**
   * A contract wait: as poll, but running out of time fails the check as a violation of `opts.clause` (and
   * reaching it is an assertion).
   */
  expectWithin<T>(probe: Probe<T>, opts: WaitOpts & { everyMs?: number; clause: C }): Promise<T>;
  /** Asserts that `probe` stays true for the whole window (absence checks); a required wait. */
  holdsFor(probe: () => Promise<boolean> | boolean, windowMs: number, what: string, clause: C): Promise<void>;
  /** A visible pause where a race window truly needs one; shows in the timeline with its reason. */
  pause(ms: number, why: string): Promise<void>;
  /**
   * Runs the scenario up to --trials times its scale (fresh objects each time), up to --parallel-trials of
   * them side by side (fewer where the check declares so: CheckSpec.trials.atOnce). Each trial is
   * independent: inside it t.make names and labels its objects as the trial's, and t.cri's listings,
   * t.nri's plugins and events, t.inject's settings and logs and t.cleanupNow see only the trial's own, so
   * no trial's evidence can come from another. The first violating trial ends the trials (none starts after
   * it) and fails the check with "violated in trial k of N" and its message, whatever other trials did; a
   * trial that errors is an ERROR only when none violated; a skip stops the trials. A known deviation on a
   * path (t.path) ends only that path. A PASS states what the trials could have seen, per path where the
   * check has paths (trials.ts describeStrength).
   *
   * With `build`, a trial's objects that no race depends on are built by it, with a factory whose objects
   * belong to that trial (`last` says whether it is the last trial planned), and handed to the scenario as
   * `setup.built`; `setup.buildNext()` lets the next trial's build run while this trial only waits.
   *
   * With `pathCount`, the check has learnt at its start how many paths its trials can take here, and that
   * number replaces its declared scale: --trials on each of them, no more (IDEM-14 once ran 30 trials on
   * each of two paths because a third, which the runtime cannot hold, was planned for).
   */
  trials<P = undefined>(
    scenario: (trial: number, setup: TrialSetup<P>) => Promise<void>,
    build?: (trial: number, make: ConfigFactory, last: boolean) => Promise<P>,
    pathCount?: number,
  ): Promise<void>;
  /**
   * Runs `work` once no other trial of the check is inside oneAtATime, trials taking turns in the order
   * they ask; at once outside trials. For the part of a trial that holds an NRI hook (`what`): runtimes
   * deliver hooks one at a time across all pods, so a hold queued behind another trial's would meet its
   * deadline before its hook and test another scenario. Keep `work` to the hold itself; everything before
   * and after it overlaps other trials.
   */
  oneAtATime<T>(what: string, work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` while nobody holds a hook: it waits for a hold under way to end, and holds wait for it. For
   * a call whose scenario a held hook would change (a create that an injector must hold, in a runtime that
   * calls the NRI hook before it: the call would wait behind the held hook and time out there instead).
   */
  noHeldHooks<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Restarts the runtime with --restart-cmd and waits until Version and Status answer again (skips the
   * check when no restart command is configured). Returns how long the runtime took to come back.
   */
  restartRuntime(): Promise<number>;
  /**
   * Marks, until the returned function is called, that the runtime may stay wedged if the run is killed
   * now (`why` completes "run X was killed while ..."): doctor and cleanup then tell the operator to
   * restart it.
   */
  mayWedgeRuntime(why: string): () => void;
  /**
   * Runs `produce` at most once per run for `key`: a later check that asks gets the recorded outcome, and
   * its timeline says which check ran it. The outcome must be plain data (the producing check's objects
   * and plugins are gone when it ends). A scenario that threw is not recorded.
   */
  shared<T>(key: string, produce: () => Promise<T>): Promise<T>;
  /** Stops and removes everything of this check now (used between trials and before re-use of names). */
  cleanupNow(): Promise<void>;
  /** Fails the check with the message, as a violation of `clause`, when cond is false. */
  expect(cond: boolean, message: string, clause: C): asserts cond;
  /**
   * Fails the check, as a violation of `clause`, when there are findings, each an independent violation in
   * its own words: an expected deviation must name every one (the leftovers of two builds are two bugs).
   * `message` says them all at once (by default, they are joined).
   */
  expectNone(findings: readonly string[], clause: C, message?: string): void;
  /**
   * The call IS the contract under test: a non-OK status fails the check, naming `what`, as a violation of
   * `clause`. Any other CRI call that fails is setup, and ends the check in ERROR.
   */
  expectOk<T>(what: string, call: Promise<T>, clause: C): Promise<T>;
  /** A precondition of the scenario (an injector held, a marker appeared): false is an ERROR, not a FAIL. */
  require(cond: boolean, message: string): asserts cond;
  /**
   * The scenario did not come about this time, by chance (a deadline expired before the hook it had to land
   * in): the trial runs again from a clean start, a few times at most (trials.ts); outside trials, or when
   * it keeps missing, the check ends in ERROR with `why`. `adapted`: the next run is set up to come about
   * where this one did not (a first attempt that gives up later): such misses count only after a few.
   */
  missed(why: string, adapted?: boolean): never;
  /**
   * One path of the check's scenario ("sandbox: NRI Run hook", "container half"). A violation on it that
   * an expected deviation (bundled or given) names for this check ends only that run of the path: later
   * trials take the path again (a new bug may show there), the check goes on with its other paths, and
   * ends as that known failure unless something else fails; any other violation fails the check as usual.
   * A scenario that returns 'not run' could not bring the runtime onto the path (the check records why).
   */
  path(name: string, scenario: () => Promise<unknown>): Promise<void>;
  /**
   * One variant of the check ("unknown runtime handler", "NRI hook error"). A variant that calls t.skip
   * is recorded as skipped and the check goes on; one that ends without an assertion is an ERROR; a check
   * whose variants all skipped is a SKIP with their reasons. A known deviation in one is handled as on a
   * path (t.path): the other variants still run.
   */
  variant(name: string, scenario: () => Promise<void>): Promise<void>;
}
