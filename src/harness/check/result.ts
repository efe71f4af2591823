/**
 * The outcome of one check, as every reporter sees it. Reporters read these records only; they never see
 * mocha, the CRI client or the NRI plugin.
 */

import type { Level, SuiteName, Tag } from '../core/vocabulary.js';
import type { CgroupPlacement } from '../host/cgroup-parent.js';
import type { MachineCpu } from '../host/machine-cpu.js';
import type { InstanceRecord } from '../runtime-instance.js';
import type { HookLaneUse } from './lane-use.js';

export type Verdict =
  | 'passed' // every assertion held
  | 'failed' // an assertion of the contract did not hold
  | 'error' // the tool could not reach a verdict (setup failed, unexpected exception, check timeout)
  | 'skipped' // not run: a need is missing, a tag is excluded, or the run was interrupted first
  | 'deviation' // failed, but listed in the expected-deviations file
  | 'observed'; // OBSERVE check: recorded properties, never fails

/** One line of a check's timeline. `seq` is global across CRI calls and NRI events of the run. */
export type TimelineEntry =
  | {
      kind: 'cri';
      seq: number;
      atMs: number; // since the check started
      /** The trial of t.trials the entry belongs to (trials run side by side); absent outside trials. */
      trial?: number;
      method: string;
      ids: string; // pod/container ids or names the call concerns, human-readable
      deadlineMs: number | undefined;
      latencyMs: number;
      code: string; // 'OK' or a gRPC status name such as 'DEADLINE_EXCEEDED'
      message?: string;
    }
  | {
      kind: 'nri';
      seq: number;
      atMs: number;
      trial?: number;
      plugin: string; // "<index>-<name>"
      event: string;
      podId: string;
      podName: string;
      containerId?: string;
      containerName?: string;
      note?: string; // e.g. "fault: hang", "fault: error"
    }
  | { kind: 'note'; seq: number; atMs: number; text: string; trial?: number };

/** A violation a check found, in its own words, with the clause of the contract it broke. */
export interface ViolationRecord {
  /** The clause's id (CheckSpec.clauses); '' for a violation that named none. */
  clause: string;
  /** The violation's own words, without what the harness composed around it: what deviation entries match. */
  message: string;
  /** An entry of the bundled or the given deviations names it (matched while the check ran). */
  known: boolean;
  /** The path it showed on (t.path). */
  path?: string;
  /** The trials it showed in; a known deviation may show in many, and `message` is the first's. */
  trials?: number[];
  /**
   * The known runtime issue of the entry that matches this violation, when one does: each violation of a
   * check names its own, since one trial may meet two bugs and a check may fail anew beside a known one.
   */
  knownIssue?: KnownIssue;
}

/**
 * A known runtime issue, from an entry of the bundled or the given deviations file. `links`: the upstream
 * issue tracking it (and a proposal); with `draft` (a bug not reported upstream, its drafted report in the
 * package) only a related issue, if any.
 */
export interface KnownIssue {
  reason: string;
  links: string[];
  draft?: string;
}

export interface CheckResult {
  id: string;
  suite: SuiteName;
  title: string;
  level: Level;
  tags: readonly Tag[];
  contract: string;
  verdict: Verdict;
  durationMs: number;
  /** When the check started (ISO 8601); absent for one that never ran. */
  startedAt?: string;
  /** failed/error: what did not hold; skipped: why; deviation: the reason and link. */
  message?: string;
  /** error verdicts: the stack, for the JUnit <error> body. */
  detail?: string;
  /** OBSERVE values and per-check facts (e.g. "reservation.code": "UNKNOWN"). */
  observations: Record<string, string>;
  /**
   * Parts of the contract the check could not test here, and why (t.notRun): a PASS claims only the rest,
   * and every reporter says so beside it.
   */
  notRun?: { part: string; why: string }[];
  /**
   * failed, deviation, error: the contract violations the check found, the one that decided a FAIL first,
   * then the known deviations it saw (which decide a FAIL only when nothing else does).
   */
  violations?: ViolationRecord[];
  /**
   * For trial checks: how many trials ran, how many violated the contract, and how many the run let go
   * side by side (--parallel-trials, or fewer where the check says so).
   */
  trials?: { run: number; violated: number; atOnce?: number };
  timeline: TimelineEntry[];
  /**
   * failed or deviation: the known runtime issue this failure matches, when every violation it rests on
   * matches one (the first violation's; each violation names its own, knownIssuesOf). It never changes the
   * verdict by itself.
   */
  knownIssue?: KnownIssue;
  /**
   * Time the contract itself makes the check wait: absence windows, deliberate pauses, the deadlines of
   * calls that were meant to time out, and reaping graces that ended with something left (a leak is told
   * from slow reaping only so). The benchmark compares it with the wall time.
   */
  requiredWaitMs?: number;
  /**
   * Trial checks: the least wall time their required waits allow. `serial`: every trial one after another
   * (requiredWaitMs). `sideBySide`: as the run ran them, the waits outside the trials plus the longer of
   * the trials packed into `trials.atOnce` lanes and the holds the runtime serializes (one at a time).
   */
  floorMs?: { sideBySide: number; serial: number };
}

export interface RunProperties {
  runId: string;
  toolVersion: string;
  runtimeName: string;
  runtimeVersion: string;
  criApiVersion: string;
  nriVersion: string; // 'absent' when no NRI socket
  endpoint: string;
  startedAt: string; // ISO time
  flags: string; // the effective flags, one string
  /** The host cri-conform ran on (the node under test for a local socket). */
  node?: string;
  /** Whether a kubelet drove the runtime: 'none seen', or 'seen: <signs>' (a run beside it, --beside-kubelet). */
  kubelet?: string;
  /** The runtime's cgroup driver, how it was learnt, and the parent every pod got; absent in older files. */
  cgroup?: CgroupPlacement;
  /** --isolated: the private instance of the node's runtime the run tested. */
  isolated?: InstanceRecord;
  /** The node's OS (os-release PRETTY_NAME) and kernel ("Linux 6.12.38 x86_64"); absent in older files. */
  os?: string;
  kernel?: string;
  /** The NRI socket the run used, when it had one. */
  nriSocket?: string;
  /**
   * The runtime's NRI plugin timeouts, as it sent them to the run's probe plugin; 'not sent' by a runtime
   * whose NRI predates them (v0.7); absent without NRI, and in files of runs that did not record them.
   */
  nriTimeouts?: NriTimeouts | 'not sent';
}

/** An NRI runtime's plugin timeouts (ConfigureRequest request_timeout and registration_timeout, NRI v0.7+). */
export interface NriTimeouts {
  requestMs: number;
  registrationMs: number;
}

/** The runtime crashed (or restarted on its own) while checks ran: a failure of the run in its own right. */
export interface RuntimeCrash {
  /** The check that saw it when it ended. */
  check: string;
  /** Checks that were running beside it, so the crash may be theirs too. */
  beside: string[];
  /** What showed it: no answer, or a new socket serving the runtime. */
  evidence: string;
}

/**
 * Every known issue a result names, each once, in the order of its violations: a failure may rest on two
 * bugs, and a FAIL beside a known bug still names that one. A result read from a report that recorded only
 * the result's own issue has that one.
 */
export function knownIssuesOf(
  r: Pick<CheckResult, 'knownIssue' | 'violations'>,
  same: (a: KnownIssue, b: KnownIssue) => boolean = sameKnownIssue,
): KnownIssue[] {
  const all = (r.violations ?? []).flatMap((v) => (v.knownIssue ? [v.knownIssue] : []));
  if (all.length === 0 && r.knownIssue) all.push(r.knownIssue);
  return all.filter((k, i) => all.findIndex((other) => same(other, k)) === i);
}

export function sameKnownIssue(a: KnownIssue, b: KnownIssue): boolean {
  return a.reason === b.reason && a.links.join(' ') === b.links.join(' ') && a.draft === b.draft;
}

/**
 * What tracks a known issue, for every report: its upstream links, or for a bug not reported upstream
 * "not reported upstream, bug report draft <path>" (and the related issue).
 */
export function describeTracking(k: { links: readonly string[]; draft?: string }): string {
  if (k.draft === undefined) return k.links.join(' ');
  const related = k.links.length > 0 ? ` (related: ${k.links.join(' ')})` : '';
  return `not reported upstream, bug report draft ${k.draft}${related}`;
}

/** "runtime crash during IDEM-05 (beside TEAR-02): ...": the one line every reporter prints for it. */
export function describeCrash(crash: RuntimeCrash): string {
  const beside = crash.beside.length > 0 ? ` (beside ${crash.beside.join(', ')})` : '';
  return `runtime crash during ${crash.check}${beside}: ${crash.evidence}`;
}

/** "cgroup driver systemd (CRI RuntimeConfig), parent cri_conform.slice": how doctor and every report say it. */
export function describeCgroup(p: CgroupPlacement): string {
  const given = p.parentSource === 'default' ? '' : ' (--cgroup-parent)';
  return `cgroup driver ${p.driver} (${p.driverSource}), parent ${p.parent}${given}`;
}

export interface RunOutcome {
  properties: RunProperties;
  results: CheckResult[];
  durationMs: number;
  /** Set when the run stopped early (signal, fail-fast, run timeout). */
  interrupted?: string;
  /** --expected-deviations entries that matched no failure; one line each, starting with the check id. */
  staleDeviations?: string[];
  /** Crashes of the runtime during the run, in the order they were seen; absent when there were none. */
  runtimeCrashes?: RuntimeCrash[];
  /** Set when the run could not start at all (unreachable runtime, missing image): why. No results then. */
  notStarted?: string;
  /** What the machine's CPUs did during the run, when the runtime shares them (its node); else absent. */
  cpu?: MachineCpu;
  /** How long checks held NRI hooks in turn (lane-use.ts); absent when none did. */
  hookLane?: HookLaneUse;
}
