/**
 * A bug report for one failed check, as Markdown to paste into the runtime's issue tracker: a title naming
 * the contract broken, the environment, the contract and where it is written, what happened (message and
 * the violating trial's steps), how to reproduce it with cri-conform, and the known upstream issue. The
 * reader is a runtime maintainer on another machine, so nothing names this one: the private directory of
 * the runtime's socket becomes $RUNTIME_DIR, and the run id appears once. Pure: a result in, text out.
 */
import { type CheckResult, describeCrash, type RunOutcome, type TimelineEntry } from '../harness/result.js';
import { type RawSegment, splitTrials } from './html/sequence-model.js';
import { formatMs } from './text.js';

/** What the catalogue says about the check, beyond its result: what it needs to run. */
export interface CheckNeeds {
  needs: readonly string[];
}

export class IssueReportError extends Error {
  readonly code = 'ERR_ISSUE_REPORT';
  override readonly name = 'IssueReportError';
}

const REPORTABLE = new Set(['failed', 'deviation', 'error']);
const MAX_STEPS = 60;
const DEFAULT_TRIALS = '5';
const DEFAULT_NRI_SOCKET = '/var/run/nri/nri.sock';
/** Run flags that do not change what a check does; the reproduce command leaves them out. */
const REPORTING_FLAGS =
  /^--(report-dir|report-prefix|junit|json|html|baseline|color|no-color|focus|skip|suite|level|trials|parallel|fail-fast|flake-attempts|run-timeout|expected-deviations|strict-deviations|config|runtime-endpoint|image-endpoint|nri-socket|restart-cmd|slow-runtime-dir|slow-cni-dir)(=|$)/;

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
    ...whatHappened(r, hide),
    ...crashes(outcome, r.id, hide),
    '',
    ...reproduce(outcome, r, catalogue, hide),
  ];
  if (r.knownIssue) {
    lines.push('', '## Known upstream issue', '', hide(r.knownIssue.reason), '');
    lines.push(...r.knownIssue.links.map((l) => `- ${l}`));
  }
  return `${lines.join('\n')}\n`;
}

function environment(outcome: RunOutcome, hide: (s: string) => string): string[] {
  const p = outcome.properties;
  const rows: [string, string][] = [
    ['runtime', `${p.runtimeName} ${p.runtimeVersion} (CRI API ${p.criApiVersion})`],
    ['NRI', p.nriVersion],
    ['OS', p.os ?? 'not recorded by this run'],
    ['kernel', p.kernel ?? 'not recorded by this run'],
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
      `\`$RUNTIME_DIR\` is the directory of the runtime's socket: a private instance here, \`/run/${p.runtimeName}\` on a default install. Paths below are relative to it.`,
    );
  return out;
}

function whatHappened(r: CheckResult, hide: (s: string) => string): string[] {
  const segment = violatingSegment(r.timeline);
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
    e.kind === 'note' && (e.text.startsWith(`start ${r.id} `) || /^trial \d+( of \d+$|: )/.test(e.text));
  const steps = segment.entries.filter((e) => !said(e)).sort((a, b) => a.atMs - b.atMs);
  if (steps.length === 0) return out;
  out.push(
    '',
    `### Steps${segment.title ? ` of ${segment.title}` : ''}`,
    '',
    'Times are from the start of the check; a CRI call is listed when it was made, with its outcome and how long it took.',
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
function violatingSegment(timeline: readonly TimelineEntry[]): RawSegment {
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

function reproduce(
  outcome: RunOutcome,
  r: CheckResult,
  catalogue: CheckNeeds | undefined,
  hide: (s: string) => string,
): string[] {
  const p = outcome.properties;
  const flags = p.flags.split(/\s+/).filter((f) => f !== '');
  const trials = flags.find((f) => f.startsWith('--trials='))?.slice('--trials='.length) ?? DEFAULT_TRIALS;
  const level = r.level === 'MUST' ? [] : [`--level ${r.level === 'SHOULD' ? 'should' : 'all'}`];
  const needs = catalogue?.needs ?? [];
  const args = [
    `--focus '^${r.id}\\b'`,
    `--trials ${trials}`,
    ...level,
    `--runtime-endpoint ${hide(p.endpoint)}`,
    ...(needs.includes('nri') ? [`--nri-socket ${hide(p.nriSocket ?? DEFAULT_NRI_SOCKET)}`] : []),
    ...(r.tags.includes('Restart') ? [`--restart-cmd '${restartCommand(p.runtimeName)}'`] : []),
    ...flags.filter((f) => !REPORTING_FLAGS.test(f)).map(hide),
  ];
  const out = [
    '## Reproduce',
    '',
    'With [cri-conform](https://www.npmjs.com/package/cri-conform) on the node, as root:',
    '',
  ];
  out.push('```sh', `cri-conform run ${args.join(' \\\n  ')}`, '```');
  const notes: string[] = [];
  if (r.tags.includes('Restart'))
    notes.push(
      `A runtime that fails this check can stay wedged; the check then restarts it with \`--restart-cmd\` (any command that restarts ${p.runtimeName} and returns; this run used a script for its private instance).`,
    );
  if (needs.some((n) => n.startsWith('slow-') || n === 'creation-delay'))
    notes.push(
      'The check delays creation with a test runtime handler or CNI wrapper: add `--slow-runtime-handler`/`--slow-runtime-dir` or `--slow-cni-dir` as in the cri-conform README, "Injectors".',
    );
  const trial = violatingSegment(r.timeline).title;
  if (r.trials && trial)
    notes.push(
      `It is a race: this run saw it in ${trial} (with \`--trials ${trials}\`); a larger \`--trials\` gives it more chances.`,
    );
  return notes.length > 0 ? [...out, '', ...notes.map((n) => `- ${n}`)] : out;
}

function restartCommand(runtimeName: string): string {
  return `systemctl restart ${runtimeName === 'cri-o' ? 'crio' : runtimeName}`;
}

/** The cgroup filesystem seen through another mount of it (a chroot, an image build): the prefix is local. */
const MOUNTED_CGROUP_FS = /(?<![\w.-])(?:\/[\w.-]+)+\/sys\/fs\/cgroup\//g;

/**
 * Replaces what names this machine: the private directory of the runtime's socket ($RUNTIME_DIR), the
 * prefix of a cgroup filesystem mounted elsewhere, and every later mention of the run id, which the
 * environment table gives once.
 */
function anonymizer(outcome: RunOutcome): (s: string) => string {
  const dir = privateRuntimeDir(outcome.properties.endpoint);
  const runId = outcome.properties.runId;
  return (s) => {
    let out = dir ? s.split(dir).join('$RUNTIME_DIR') : s;
    if (runId) out = out.split(runId).join('<run id>');
    return out.replace(MOUNTED_CGROUP_FS, '…/sys/fs/cgroup/');
  };
}

/** The socket's directory unless it is a default one (/run/<name>, /var/run/<name>), which names no machine. */
function privateRuntimeDir(endpoint: string): string | undefined {
  const path = endpoint.replace(/^unix:\/\//, '');
  if (!path.startsWith('/')) return undefined;
  const dir = path.slice(0, path.lastIndexOf('/'));
  return /^\/(var\/)?run\/[^/]+$/.test(dir) || dir === '' ? undefined : dir;
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
