/**
 * A bug report for one failed check, as Markdown to paste into the runtime's issue tracker: a title naming
 * the contract broken, the environment, the contract and where it is written, what happened (message and
 * the violating trial's steps), how to reproduce it with cri-conform, and the known upstream issue. The
 * reader is a runtime maintainer on another machine, so nothing names this one: the private directory of
 * the runtime's socket becomes $RUNTIME_DIR, and the run id appears once. Pure: a result in, text out.
 */
import {
  type CheckResult,
  describeCgroup,
  describeCrash,
  type KnownIssue,
  type RunOutcome,
  type RunProperties,
  type TimelineEntry,
} from '../harness/check/result.js';
import { type RawSegment, splitTrials } from './html/sequence-model.js';
import { anonymizer, privateRuntimeDir } from './machine-paths.js';
import { type CheckNeeds, reproduce } from './reproduce-command.js';
import { defaultSocketDir } from './runtime-names.js';
import { describeNriTimeouts, formatMs, knownIssueShares } from './text.js';

export type { CheckNeeds } from './reproduce-command.js';

export class IssueReportError extends Error {
  readonly code = 'ERR_ISSUE_REPORT';
  override readonly name = 'IssueReportError';
}

const REPORTABLE = new Set(['failed', 'deviation', 'error']);
const MAX_STEPS = 60;

export function issueReport(outcome: RunOutcome, id: string, catalogue?: CheckNeeds): string {
  const r = outcome.results.find((x) => x.id === id);
  if (!r) throw new IssueReportError(`${id} is not in this run: it ran ${outcome.results.length} checks`);
  if (!REPORTABLE.has(r.verdict))
    throw new IssueReportError(`${id} ${r.verdict} in this run: a bug report is for a failed check`);
  const hide = anonymizer(outcome);
  const p = outcome.properties;
  const lines = [
    `# ${p.runtimeName} ${p.runtimeVersion} breaks "${r.title}" (cri-conform ${r.id})`,
    '',
    ...environment(outcome, hide),
    '',
    '## The contract',
    '',
    `${r.title} (${r.level}).`,
    '',
    `Where it is written: ${r.contract}`,
    '',
    ...whatHappened(r, hide, scenarioRunner(outcome, r)),
    ...crashes(outcome, r.id, hide),
    '',
    ...reproduce(outcome, r, catalogue, hide, violatingSegment(r.timeline).title),
  ];
  for (const { issue, of } of knownIssueShares(r)) lines.push('', ...knownIssue(issue, of, hide));
  return `${lines.join('\n')}\n`;
}

/**
 * A known issue's section: the upstream issue that tracks it; for a bug not reported upstream (this report
 * is what to file), the cause as read in the runtime's source and any related issue.
 */
function knownIssue(k: KnownIssue, of: string, hide: (s: string) => string): string[] {
  if (k.draft === undefined)
    return [`## Known upstream issue${of}`, '', hide(k.reason), '', ...k.links.map((l) => `- ${l}`)];
  const related = k.links.length > 0 ? ['', 'Related:', '', ...k.links.map((l) => `- ${l}`)] : [];
  return [`## Cause, as read in the source${of}`, '', hide(k.reason), ...related];
}

function environment(outcome: RunOutcome, hide: (s: string) => string): string[] {
  const p = outcome.properties;
  const rows: [string, string][] = [
    ['runtime', `${p.runtimeName} ${p.runtimeVersion} (CRI API ${p.criApiVersion})`],
    ['NRI', p.nriVersion],
    ...nriTimeoutsRow(p),
    ['OS', p.os ?? 'not recorded by this run'],
    ['kernel', p.kernel ?? 'not recorded by this run'],
    ['cgroups', p.cgroup ? describeCgroup(p.cgroup) : 'not recorded by this run'],
    ['runtime endpoint', `\`${hide(p.endpoint)}\``],
    [
      'found by',
      `cri-conform ${p.toolVersion}, run ${p.runId}, ${p.startedAt.slice(0, 16).replace('T', ' ')} UTC`,
    ],
  ];
  const out = ['## Environment', '', '| | |', '|---|---|', ...rows.map(([k, v]) => `| ${k} | ${cell(v)} |`)];
  const dir = privateRuntimeDir(p.endpoint);
  if (dir)
    out.push(
      '',
      `\`$RUNTIME_DIR\` is the directory of the runtime's socket: a private instance here, \`${defaultSocketDir(p.runtimeName)}\` on a default install. Paths below are relative to it.`,
    );
  return out;
}

/** How long the runtime gives an NRI plugin: a hook held longer is the plugin's failure, not the runtime's. */
function nriTimeoutsRow(p: RunProperties): [string, string][] {
  if (p.nriVersion === 'absent') return [];
  const text = p.nriTimeouts === undefined ? 'not recorded by this run' : describeNriTimeouts(p.nriTimeouts);
  return [['NRI timeouts', text]];
}

/**
 * The check that ran this check's shared scenario (observation "scenario": "<key>: run by <ID>"), whose
 * timeline has the calls: a check that reads a shared outcome records only a pointer to them.
 */
function scenarioRunner(outcome: RunOutcome, r: CheckResult): CheckResult | undefined {
  const by = /: run by ([A-Z]{3,5}-\d{2})$/.exec(r.observations.scenario ?? '')?.[1];
  return by === undefined || by === r.id ? undefined : outcome.results.find((x) => x.id === by);
}

function whatHappened(r: CheckResult, hide: (s: string) => string, runner?: CheckResult): string[] {
  const segment = violatingSegment((runner ?? r).timeline);
  const trials = segment.title ? ` in ${segment.title}` : '';
  const out = [
    '## What happened',
    '',
    `The check ${r.verdict === 'error' ? 'ended in an error' : 'failed'}${trials}:`,
  ];
  out.push('', '```text', hide(r.message ?? '(no message)'), '```');
  const obs = Object.entries(r.observations);
  if (obs.length > 0) out.push('', ...obs.map(([k, v]) => `- ${hide(k)}: ${hide(v)}`));
  // The check's start, and a trial's start and verdict, are in the heading and the message already.
  const said = (e: TimelineEntry) =>
    e.kind === 'note' &&
    (e.text.startsWith(`start ${(runner ?? r).id} `) || /^trial \d+( of \d+$|: )/.test(e.text));
  const steps = segment.entries.filter((e) => !said(e)).sort((a, b) => a.atMs - b.atMs);
  if (steps.length === 0) return out;
  out.push(
    '',
    `### Steps${segment.title ? ` of ${segment.title}` : ''}`,
    '',
    runner
      ? `The scenario is shared: ${runner.id} ran it in this run and ${r.id} judged what it recorded, so these are ${runner.id}'s steps. Times are from the start of ${runner.id}; a CRI call is listed when it was made, with its outcome and how long it took.`
      : 'Times are from the start of the check; a CRI call is listed when it was made, with its outcome and how long it took.',
  );
  if (steps.some((e) => e.kind === 'nri'))
    out.push(
      '',
      "Plugins named `<index>-cri-conform-…` are cri-conform's own NRI plugins, registered on the runtime's NRI socket like any other; `[fault: …]` is what such a plugin did on purpose (delay, hang or fail its answer).",
    );
  out.push('');
  let lastMessage: string | undefined;
  steps.slice(0, MAX_STEPS).forEach((e, i) => {
    // Retries often repeat one long runtime message; it is given once, and then referred to.
    const repeated = e.kind === 'cri' && e.message !== undefined && e.message === lastMessage;
    if (e.kind === 'cri') lastMessage = e.message;
    out.push(`${i + 1}. ${step(e, hide, repeated)}`);
  });
  if (steps.length > MAX_STEPS)
    out.push(`${MAX_STEPS + 1}. … ${steps.length - MAX_STEPS} more steps (results.json has them all)`);
  return out;
}

/** Crashes of the runtime the run saw while this check ran: a maintainer wants them beside the failure. */
function crashes(outcome: RunOutcome, id: string, hide: (s: string) => string): string[] {
  const seen = (outcome.runtimeCrashes ?? []).filter((c) => c.check === id || c.beside.includes(id));
  if (seen.length === 0) return [];
  return [
    '',
    'The runtime crashed while this check ran:',
    '',
    ...seen.map((c) => `- ${hide(describeCrash(c))}`),
  ];
}

/** The trial that violated the contract, or the whole timeline for a check without trials. */
export function violatingSegment(timeline: readonly TimelineEntry[]): RawSegment {
  const segments = splitTrials(timeline);
  return segments.find((s) => s.violation !== undefined) ?? { title: '', entries: [...timeline] };
}

function step(e: TimelineEntry, hide: (s: string) => string, repeatedMessage: boolean): string {
  const at = `+${Math.round(e.atMs)} ms`;
  switch (e.kind) {
    case 'cri': {
      const deadline = e.deadlineMs === undefined ? 'no deadline' : `deadline ${e.deadlineMs} ms`;
      const outcome = e.code === 'OK' ? 'OK' : `**${e.code}**`;
      const msg = !e.message ? '' : repeatedMessage ? ' (the same message)' : `: ${hide(e.message)}`;
      const ids = e.ids ? ` ${hide(e.ids)}` : '';
      return `${at} CRI \`${e.method}\`${ids} (${deadline}) → ${outcome} after ${formatMs(e.latencyMs)}${msg}`;
    }
    case 'nri': {
      const ctr = e.containerName ? `, container ${e.containerName}` : '';
      const note = e.note ? ` [${e.note}]` : '';
      return `${at} NRI event \`${e.event}\` to plugin ${e.plugin}: pod ${e.podName}${ctr}${note}`;
    }
    case 'note':
      return `${at} ${hide(e.text)}`;
  }
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
