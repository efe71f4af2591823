/**
 * The HTML report: one self-contained file (inline CSS and script, no network) with the run's header and
 * exit verdict, a suite-by-verdict matrix, filters, an optional diff against a baseline, and one collapsible
 * row per check with its sequence diagram. Failures and errors come first; the first of them is open.
 */
import {
  type CheckResult,
  describeCgroup,
  describeCrash,
  type RunOutcome,
} from '../../harness/check/result.js';
import type { RunDiff } from '../diff.js';
import { countVerdicts, groupBySuite, outcomeExitCode, VERDICT_ORDER } from '../tally.js';
import { describeCpu, describeHookLane, formatMs } from '../text.js';
import { renderCheck } from './check-section.js';
import { CLIENT_SCRIPT } from './client-script.js';
import { renderDiffSection } from './diff-section.js';
import { esc } from './escape.js';
import { STYLES } from './styles.js';

const EXIT_WORDS = [
  'exit 0: every selected check passed',
  'exit 1: a check failed',
  'exit 2: no trustworthy verdict',
];

export function renderHtml(outcome: RunOutcome, opts: { diff?: RunDiff } = {}): string {
  const p = outcome.properties;
  const title = `cri-conform: ${p.runtimeName} ${p.runtimeVersion}`;
  return [
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title>`,
    `<style>${STYLES}</style></head><body>`,
    header(outcome),
    '<main>',
    matrix(outcome.results),
    opts.diff ? renderDiffSection(opts.diff) : '',
    checks(outcome.results),
    '</main>',
    `<script>${CLIENT_SCRIPT}</script></body></html>\n`,
  ].join('');
}

/** The run's facts as label and value, for this report's header and each run of the matrix. */
export function runPropertyRows(outcome: RunOutcome): [string, string][] {
  const p = outcome.properties;
  return [
    ['runtime', `${p.runtimeName} ${p.runtimeVersion}`],
    ['CRI API', p.criApiVersion],
    ['NRI', p.nriVersion],
    ['node', p.node ?? 'unknown'],
    ['kubelet', p.kubelet ?? 'not looked for'],
    ['cgroups', p.cgroup ? describeCgroup(p.cgroup) : 'not recorded by this run'],
    ['endpoint', p.endpoint],
    ['started', p.startedAt],
    ['duration', formatMs(outcome.durationMs)],
    ...(outcome.cpu ? [['CPU', describeCpu(outcome.cpu)] as [string, string]] : []),
    ...(outcome.hookLane ? [['hook lane', describeHookLane(outcome.hookLane)] as [string, string]] : []),
    ['flags', p.flags || '(defaults)'],
    ['run', `${p.runId} (cri-conform ${p.toolVersion})`],
  ];
}

function header(outcome: RunOutcome): string {
  const code = outcomeExitCode(outcome);
  const rows = runPropertyRows(outcome);
  const notes: string[] = [];
  if (outcome.notStarted !== undefined) notes.push(`The run could not start: ${outcome.notStarted}`);
  if (outcome.interrupted) notes.push(`Interrupted: ${outcome.interrupted}`);
  for (const s of outcome.staleDeviations ?? []) notes.push(`Expected deviation matched nothing: ${s}`);
  for (const crash of outcome.runtimeCrashes ?? []) notes.push(describeCrash(crash).replace(/^r/, 'R'));
  return (
    `<header><h1>cri-conform report <span class="verdict exit-${code}">${EXIT_WORDS[code]}</span></h1>` +
    `<dl class="props">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${esc(v)}</dd>`).join('')}</dl>` +
    notes.map((n) => `<p class="known">${esc(n)}</p>`).join('') +
    '</header>'
  );
}

function matrix(results: readonly CheckResult[]): string {
  const cell = (n: number) => `<td${n === 0 ? ' class="zero"' : ''}>${n}</td>`;
  const row = (name: string, list: readonly CheckResult[]) => {
    const counts = countVerdicts(list);
    return `<tr><td>${esc(name)}</td>${VERDICT_ORDER.map((v) => cell(counts[v])).join('')}<td>${list.length}</td></tr>`;
  };
  const head = `<tr><th>suite</th>${VERDICT_ORDER.map((v) => `<th class="v-${v}">${v}</th>`).join('')}<th>checks</th></tr>`;
  const body = [...groupBySuite(results)].map(([suite, list]) => row(suite, list)).join('');
  return `<h2>Suites by verdict</h2><table class="matrix">${head}${body}${row('total', results)}</table>`;
}

function checks(results: readonly CheckResult[]): string {
  const bad = (r: CheckResult) => r.verdict === 'failed' || r.verdict === 'error';
  const ordered = [...results.filter(bad), ...results.filter((r) => !bad(r))];
  const firstBad = ordered.find(bad);
  return `<h2>Checks</h2>${filters(results)}${ordered.map((r) => renderCheck(r, r === firstBad)).join('')}`;
}

function filters(results: readonly CheckResult[]): string {
  const group = (name: string, values: readonly string[]) =>
    `<fieldset><legend>${name}</legend>${values
      .map(
        (v) =>
          `<label><input type="checkbox" data-group="${name}" value="${esc(v)}" checked> ${esc(v)}</label>`,
      )
      .join('')}</fieldset>`;
  const distinct = (f: (r: CheckResult) => string) => [...new Set(results.map(f))];
  return (
    '<div class="filters">' +
    group(
      'suite',
      distinct((r) => r.suite),
    ) +
    group(
      'verdict',
      VERDICT_ORDER.filter((v) => results.some((r) => r.verdict === v)),
    ) +
    group(
      'level',
      distinct((r) => r.level),
    ) +
    '<button type="button" id="expand-all">expand all</button>' +
    '<button type="button" id="collapse-all">collapse all</button>' +
    '<span id="shown"></span></div>'
  );
}
