/** Builds the `t` a check runs with, and tears down everything the check made when it ends. */
import { Assertions } from '../check/assertions.js';
import type { Check } from '../check/check.js';
import { CheckPaths } from '../check/check-paths.js';
import { createConfigFactory, podNamePrefix } from '../check/config-factory.js';
import type { CheckContext, ConfigFactory, HostProbe } from '../check/context.js';
import { Timeline } from '../check/timeline.js';
import { CheckCri } from '../check/tracked-cri.js';
import type { TrialPlaces } from '../check/trial-places.js';
import { TrialScope, trialNamePrefix } from '../check/trial-scope.js';
import type { TrialTally } from '../check/trials.js';
import { errorMessage, ScenarioMissed, SkipSignal } from '../core/errors.js';
import { holdsFor, poll, sleep } from '../core/waits.js';
import { markWedgeRisk } from '../host/wedge-risk.js';
import { HookLane } from '../injectors/hook-lane.js';
import { CheckInjectors } from '../injectors/injectors.js';
import { CheckNri } from '../injectors/nri-control.js';
import { CheckObjects, type Disturbance } from '../neighbours/disturbance.js';
import { removeLabelledUntilGone } from '../runtime/cleanup.js';
import { restartRuntime } from '../runtime/restart.js';
import { checkTrials } from './check-trials.js';
import { reapGraceCounted } from './reap-grace-counted.js';
import type { RunEnv } from './run-env.js';

/** How long cleanup waits for a check's calls that are still in flight (a held or slow create). */
const SETTLE_MS = 60_000;
const CLEANUP_MS = 60_000;

export interface CheckScope {
  t: CheckContext;
  timeline: Timeline;
  observations: Record<string, string>;
  /** The parts of the contract the check said it could not test (t.notRun). */
  notRun: { part: string; why: string }[];
  assertions: Assertions;
  /** The trials' tally, live while they run; undefined when the check runs none. */
  trials(): TrialTally | undefined;
  /** How many trials ran side by side at most (0 when the check runs none). */
  trialsAtOnce(): number;
  /** The check's paths and the known deviations they showed. */
  paths: CheckPaths;
  /** Releases hooks, disconnects plugins, resets injectors, removes every labelled object of the check. */
  teardown(): Promise<string[]>;
  /** What the check made and asked to end, and whether another client stopped or removed any of it. */
  objects: CheckObjects;
}

function unavailableHost(why: string): HostProbe {
  const skip = (): never => {
    throw new SkipSignal(`[Node] ${why}`);
  };
  return {
    available: false,
    whyUnavailable: `[Node] ${why}`,
    snapshot: skip,
    leftovers: skip,
    stillHeld: skip,
    netnsKind: skip,
    baseline: skip,
    netnsOwners: skip,
    recordIds: skip,
    newLeftovers: skip,
  };
}

/** The config factory and registration-gate key of the caller: its trial's inside a trial, else the check's. */
interface CallerOwn {
  make: () => ConfigFactory;
  gateKey: () => string;
}

function callerOwn(env: RunEnv, check: Check, scope: TrialScope): CallerOwn {
  const checkMake = createConfigFactory(env.runId, check.id, env.settings);
  const trialMakes = new Map<number, ConfigFactory>();
  /** The factory of the caller's trial: its objects carry the trial's label and name prefix. */
  const make = (): ConfigFactory => {
    const trial = scope.current();
    if (trial === undefined) return checkMake;
    const made = trialMakes.get(trial) ?? createConfigFactory(env.runId, check.id, env.settings, trial);
    trialMakes.set(trial, made);
    return made;
  };
  /** Who the registration gate keeps apart: the check, and each of its trials (registration-gate.ts). */
  const gateKey = () => {
    const trial = scope.current();
    return trial === undefined ? check.id : `${check.id} trial ${trial}`;
  };
  return { make, gateKey };
}

/** What a check talks to the runtime through: the gated client, the tracked CRI, its NRI plugins, its injectors. */
interface CheckClients {
  client: RunEnv['client'];
  cri: CheckCri;
  nri: CheckNri | undefined;
  injectors: CheckInjectors;
}

/** What the check's clients share: its timeline, its objects, its trials' scope and the run's hook lane. */
interface ClientsShare {
  signal: AbortSignal;
  timeline: Timeline;
  objects: CheckObjects;
  scope: TrialScope;
  lane: HookLane;
  own: CallerOwn;
}

/** Opens the check's clients: each one tells `objects` what the check does, and records on `timeline`. */
function openCheckClients(env: RunEnv, check: Check, share: ClientsShare): CheckClients {
  const { signal, timeline, objects, scope, lane, own } = share;
  const monitor = env.disturbance;
  const { make, gateKey } = own;
  // Cleanup runs after the check's signal has aborted, so the gate waits on the run's.
  const registrationGate = env.registrations.forCalls(gateKey, env.signal);
  const client = env.client.withGate(registrationGate);
  const cri = new CheckCri({
    client,
    timeline,
    runId: env.runId,
    checkId: check.id,
    make,
    trialOf: scope.current,
    runtimeHandler: env.settings.runtimeHandler,
    callTimeoutMs: env.settings.callTimeoutMs,
    signal,
    objects,
    ...(env.ownIds ? { ownIds: env.ownIds } : {}),
    ...(env.beforeCall ? { beforeCall: env.beforeCall } : {}),
    ...(monitor ? { lookBeforeEnding: () => monitor.lookBeforeEnding(objects) } : {}),
  });
  const nri =
    'socketPath' in env.nri
      ? new CheckNri({
          socketPath: env.nri.socketPath,
          runId: env.runId,
          checkId: check.id,
          needs: check.needs,
          sequence: env.sequence,
          registrations: env.registrations,
          timeline,
          nriRequestTimeoutMs: env.settings.nriRequestTimeoutMs,
          signal,
          onEvent: (e) => objects.nriEvent(e),
          trialOf: scope.current,
          gateKey,
          hooked: (register) => lane.hooked(gateKey(), register),
          laned: lane.laned,
        })
      : undefined;
  const injectors = new CheckInjectors(
    env.injectors,
    check.needs,
    podNamePrefix(check.id),
    check.uses,
    scope.current,
    env.resting ? { turn: env.resting.turnFor(check), signal } : undefined,
    env.ownIds ? (ids) => env.ownIds?.add(ids) : undefined,
  );
  return { client, cri, nri, injectors };
}

/**
 * The one cleanup sequence, after each trial and at the end: returns what it could not clean. After a
 * trial it clears that trial's objects, plugins and injector claims only: the trials beside it go on.
 */
function checkCleanup(
  env: RunEnv,
  check: Check,
  { client, cri, nri, injectors }: CheckClients,
  objects: CheckObjects,
): (trial?: number) => Promise<string[]> {
  const monitor = env.disturbance;
  return async (trial) => {
    const problems: string[] = [];
    await nri?.closeAll(trial);
    await injectors.reset(trial).catch((e: unknown) => problems.push(`injector reset: ${errorMessage(e)}`));
    if (!(await cri.settled(SETTLE_MS, trial)))
      problems.push(`CRI calls still in flight after ${SETTLE_MS} ms`);
    const sweep = { runId: env.runId, checkId: check.id, ...(trial === undefined ? {} : { trial }) };
    // A last look before the check's own cleanup ends everything: a trial judged on a pod another client
    // stopped a moment ago must not go unnoticed.
    await monitor?.lastLook(objects);
    objects.endingAll(trial === undefined ? undefined : trialNamePrefix(podNamePrefix(check.id), trial));
    const report = await removeLabelledUntilGone(client, sweep, CLEANUP_MS);
    objects.sweepDone();
    problems.push(...report.problems);
    return problems;
  };
}

/** The waits and assertions of t: each contract wait and assertion names its clause. */
function checkAssertionVerbs(
  assertions: Assertions,
  timeline: Timeline,
  signal: AbortSignal,
): Pick<
  CheckContext,
  'poll' | 'expectWithin' | 'holdsFor' | 'pause' | 'expect' | 'expectNone' | 'expectOk' | 'require'
> {
  const requiredWait = <T>(ms: number, wait: Promise<T>): Promise<T> => {
    timeline.addRequiredWait(ms);
    return wait;
  };
  return {
    poll: (probe, opts) => poll(probe, { ...opts, signal }),
    expectWithin: (probe, opts) => assertions.expectWithin(poll(probe, { ...opts, signal }), opts.clause),
    holdsFor: (probe, windowMs, what, clause) =>
      assertions.holds(requiredWait(windowMs, holdsFor(probe, windowMs, what, signal)), clause),
    pause: async (ms, why) => {
      timeline.note(`pause ${ms} ms: ${why}`);
      await requiredWait(ms, sleep(ms, signal));
    },
    expect(cond: boolean, message: string, clause: string): asserts cond {
      assertions.expect(cond, message, clause);
    },
    expectNone: (findings, clause, message) => assertions.expectNone(findings, clause, message),
    expectOk: (what, call, clause) => assertions.expectOk(what, call, clause),
    require(cond: boolean, message: string): asserts cond {
      assertions.require(cond, message);
    },
  };
}

export function openCheckScope(
  env: RunEnv,
  check: Check,
  signal: AbortSignal,
  onDisturbed: (d: Disturbance) => void = () => {},
): CheckScope {
  const scope = new TrialScope();
  // A run that shares none gives the check a lane of its own: its trials still take turns in it.
  const lane = env.hookLane ?? new HookLane();
  const timeline = new Timeline(env.sequence, { trial: scope.current, laned: lane.laned });
  const objects = new CheckObjects({
    besideAnotherClient: env.disturbance !== undefined,
    checkId: check.id,
    onDisturbed,
  });
  const observations: Record<string, string> = {};
  const notRun: { part: string; why: string }[] = [];
  const assertions: Assertions = new Assertions(Object.keys(check.clauses), scope.current);
  const own = callerOwn(env, check, scope);
  const { make, gateKey } = own;
  const clients = openCheckClients(env, check, { signal, timeline, objects, scope, lane, own });
  const { cri, nri, injectors } = clients;
  let tally: TrialTally | undefined;
  const paths = new CheckPaths(
    (message) => env.knownDeviation?.(check.id, message),
    (text) => timeline.note(text),
  );
  const clearAll = checkCleanup(env, check, clients, objects);
  const cleanupNow = async (trial?: number): Promise<void> => {
    const problems = await clearAll(trial);
    if (problems.length > 0) timeline.note(`cleanup problems: ${problems.join('; ')}`);
  };
  let places: TrialPlaces | undefined;
  /** A trial waits out a reaping grace without its place (trial-places.ts); outside trials it just waits. */
  const rest = <T>(wait: () => Promise<T>): Promise<T> => {
    const trial = scope.current();
    return trial !== undefined && places ? places.rest(trial, wait) : wait();
  };

  const unavailable = (why: string): never => {
    throw new SkipSignal(why);
  };
  const host: HostProbe =
    'unavailable' in env.host
      ? unavailableHost(env.host.unavailable)
      : reapGraceCounted(env.host, {
          countWait: (from, to, resting) => timeline.addRequiredSpan(from, to, { resting }),
          rest,
        });

  const t: CheckContext = {
    id: check.id,
    settings: env.settings,
    signal,
    cri,
    get make() {
      return make();
    },
    nri: nri ?? {
      available: false,
      plugin: () => unavailable('unavailable' in env.nri ? env.nri.unavailable : 'NRI unavailable'),
      events: () => [],
      watchIds: () => undefined,
    },
    host,
    inject: injectors,
    step: (text) => timeline.note(text),
    observe: (key, value) => {
      observations[key] = String(value);
      timeline.note(`observed ${key} = ${String(value)}`);
    },
    notRun: (part, why) => {
      timeline.note(`${part} not run: ${why}`);
      // A part each trial could not run is one part the check did not test: the first reason stands for all.
      if (notRun.some((n) => n.part === part)) return;
      notRun.push({ part, why });
      observations[part] = `not run: ${why}`;
    },
    skip: (reason) => unavailable(reason),
    ...checkAssertionVerbs(assertions, timeline, signal),
    trials: checkTrials(env, check, {
      timeline,
      assertions,
      paths,
      scope,
      make,
      cleanupNow,
      signal,
      onStart: (started, trialPlaces) => {
        tally = started;
        places = trialPlaces;
      },
    }),
    oneAtATime: (what, work) =>
      lane.oneAtATime(
        gateKey(),
        work,
        () => timeline.note(`${what} waits for another hold of a hook to end first`),
        check.id,
      ),
    noHeldHooks: (work) => lane.hooked(gateKey(), work),
    path: (name, scenario) => paths.run(name, scenario, scope.current()),
    cleanupNow: () => cleanupNow(scope.current()),
    shared: async <T>(key: string, produce: () => Promise<T>): Promise<T> => {
      if (!env.shared) return produce();
      const outcome = await env.shared.obtain(key, check.id, produce, () => objects.disturbance);
      if (!outcome.ranHere) {
        if (outcome.disturbance) objects.readsScenarioOf(outcome.by, outcome.disturbance);
        timeline.note(`scenario "${key}" as ${outcome.by} ran it in this run (its timeline has the calls)`);
        observations.scenario = `${key}: run by ${outcome.by}`;
      }
      return outcome.value as T;
    },
    mayWedgeRuntime: (why) => markWedgeRisk(env.runId, env.restart?.endpoint ?? '', why),
    restartRuntime: () =>
      env.restart ? restartRuntime(env.client, env.restart) : unavailable('[Restart] pass --restart-cmd'),
    missed: (why, adapted) => {
      throw new ScenarioMissed(why, adapted);
    },
    // A known deviation in one variant leaves the others to run, as on any path.
    variant: (name, scenario) => assertions.variant(name, () => paths.run(name, scenario, scope.current())),
  };

  const teardown = async (): Promise<string[]> => {
    const problems = await clearAll();
    await injectors.release().catch((e: unknown) => problems.push(`injector release: ${errorMessage(e)}`));
    return problems;
  };
  return {
    t,
    timeline,
    observations,
    notRun,
    assertions,
    trials: () => tally,
    trialsAtOnce: () => places?.size ?? 0,
    paths,
    teardown,
    objects,
  };
}
