/** The HTML form of a RunDiff: the two sides, changed checks with links to their rows, moved durations. */
import type { RunDiff } from '../diff.js';
import { formatMs } from '../text.js';
import { esc } from './escape.js';

export function renderDiffSection(d: RunDiff): string {
  const side = (label: string, s: RunDiff['old']) =>
    `<dt>${label}</dt><dd>${esc(s.runtime)}, cri-conform ${esc(s.toolVersion)}, ${esc(s.startedAt)}` +
    `${s.notStarted !== undefined ? ` (did not start: ${esc(s.notStarted)})` : ''}</dd>`;
  const rows = d.changes
    .map(
      (c) =>
        `<tr><td class="${c.kind}">${c.kind}</td><td><a href="#check-${esc(c.id)}">${esc(c.id)}</a></td>` +
        `<td>${c.old ?? '—'}</td><td>${c.new ?? '—'}</td><td>${esc(c.title)}</td></tr>`,
    )
    .join('');
  const durations = d.durations
    .map((c) => `<tr><td>${esc(c.id)}</td><td>${formatMs(c.oldMs)}</td><td>${formatMs(c.newMs)}</td></tr>`)
    .join('');
  return (
    `<section class="diff"><h2>Compared with the baseline: ${d.regressions} regression(s)</h2>` +
    `<dl class="props">${side('baseline', d.old)}${side('this run', d.new)}</dl>` +
    (rows
      ? `<table><tr><th>change</th><th>check</th><th>old</th><th>new</th><th>title</th></tr>${rows}</table>`
      : '<p>No verdict changed.</p>') +
    (durations
      ? `<h3>Durations that moved</h3><table><tr><th>check</th><th>old</th><th>new</th></tr>${durations}</table>`
      : '') +
    '</section>'
  );
}
