/**
 * One check in the HTML report: a <details> row (ID, level, title, verdict, duration, trials) whose body
 * holds the failure message, the known issue, the contract, the observations, the sequence diagram of each
 * trial and the full text timeline. Closed unless it is the first failure.
 */
import type { CheckResult } from '../../harness/check/result.js';
import {
  describeNotRun,
  describeTrials,
  formatMs,
  formatTimelineEntry,
  knownIssueShares,
  notRunMark,
} from '../text.js';
import { esc } from './escape.js';
import { buildSequence } from './sequence-model.js';
import { renderSegmentSvg } from './sequence-svg.js';

/** `anchor` is the element id; the matrix gives each run's copy of a check its own. */
export function renderCheck(r: CheckResult, open: boolean, anchor = `check-${r.id}`): string {
  const trials = r.trials ? `${r.trials.violated}/${r.trials.run}` : '';
  const mark = notRunMark(r);
  const summary =
    `<summary><span class="id">${esc(r.id)}</span><span>${esc(r.level)}</span>` +
    `<span class="v-${r.verdict}">${r.verdict}${mark ? ` ${esc(mark)}` : ''}</span><span>${esc(r.title)}</span>` +
    `<span class="num">${esc(formatMs(r.durationMs))}</span>` +
    `<span class="num" title="violated/run trials">${trials}</span></summary>`;
  return (
    `<details class="check" id="${esc(anchor)}" data-suite="${esc(r.suite)}" data-verdict="${r.verdict}" ` +
    `data-level="${esc(r.level)}"${open ? ' open' : ''}>${summary}<div class="body">${body(r)}</div></details>`
  );
}

function body(r: CheckResult): string {
  const out: string[] = [];
  if (r.message) {
    const bad = r.verdict === 'failed' || r.verdict === 'error';
    out.push(`<pre class="${bad ? 'message' : ''}">${esc(r.message)}</pre>`);
  }
  const notRun = describeNotRun(r);
  if (notRun) out.push(`<p class="known"><b>Not tested here:</b> ${esc(notRun)}</p>`);
  for (const { issue, of } of knownIssueShares(r)) {
    const links = issue.links.map((l) => `<a href="${esc(l)}">${esc(l)}</a>`).join(' ');
    const tracked = issue.draft
      ? `not reported upstream, bug report draft <code>${esc(issue.draft)}</code>${links ? ` (related: ${links})` : ''}`
      : links;
    out.push(`<p class="known"><b>Known issue${esc(of)}:</b> ${esc(issue.reason)} ${tracked}</p>`);
  }
  out.push(`<p><b>Contract:</b> ${esc(r.contract)}</p>`);
  const trials = describeTrials(r);
  if (trials) out.push(`<p><b>Trials:</b> ${esc(trials)}</p>`);
  const obs = Object.entries(r.observations);
  if (obs.length > 0) {
    out.push(`<pre>${obs.map(([k, v]) => `${esc(k)} = ${esc(v)}`).join('\n')}</pre>`);
  }
  if (r.detail && r.verdict === 'error')
    out.push(`<details><summary>stack</summary><pre>${esc(r.detail)}</pre></details>`);
  if (r.timeline.length > 0) {
    out.push(diagram(r));
    out.push(
      `<details><summary>timeline text (${r.timeline.length} entries)</summary>` +
        `<pre>${r.timeline.map((e) => esc(formatTimelineEntry(e))).join('\n')}</pre></details>`,
    );
  }
  return out.join('');
}

function diagram(r: CheckResult): string {
  const model = buildSequence(r.timeline);
  return model.segments
    .map((s) => {
      const title = s.title
        ? `<h4>${esc(s.title)}${s.violation !== undefined ? ` — violated: ${esc(s.violation)}` : ''}</h4>`
        : '';
      const omitted = s.omitted > 0 ? `<p>… ${s.omitted} more steps: see the timeline text.</p>` : '';
      const cls = s.violation !== undefined ? 'segment violated' : 'segment';
      return `<div class="${cls}">${title}<div class="scroll">${renderSegmentSvg(model.lanes, s)}</div>${omitted}</div>`;
    })
    .join('');
}
