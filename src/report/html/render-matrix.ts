/**
 * The matrix as one self-contained HTML file: the columns (runtime, NRI, nodes, dates), a table of checks
 * by column whose cells link to that column's check section (message and sequence diagram, as in the
 * single-run report), filters, and marks where columns differ or runs of one runtime version disagree.
 * A column of many nodes shows the sections of its first run: the others have the same verdicts.
 */
import type { Matrix, MatrixColumn, MatrixRow, MatrixRun } from '../matrix.js';
import { describeColumn, runNotes } from '../matrix-text.js';
import { VERDICT_ORDER } from '../tally.js';
import { renderCheck } from './check-section.js';
import { esc } from './escape.js';
import { MATRIX_SCRIPT } from './matrix-script.js';
import { MATRIX_STYLES } from './matrix-styles.js';
import { runPropertyRows } from './render-html.js';
import { STYLES } from './styles.js';

const STATE_WORDS: Record<MatrixRow['state'], string> = {
  same: '',
  differs: 'verdicts differ across columns',
  disagrees: 'runs of the same runtime version disagree: a flaky check or a node that differs',
};

export function renderMatrixHtml(m: Matrix, extraNotes: readonly string[] = []): string {
  const runs = m.columns.reduce((n, c) => n + c.runs.length, 0);
  const title = `cri-conform: ${runs} run${runs === 1 ? '' : 's'} in ${m.columns.length} column${m.columns.length === 1 ? '' : 's'}`;
  return [
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title>`,
    `<style>${STYLES}${MATRIX_STYLES}</style></head><body>`,
    `<header><h1>${esc(title)}</h1>${notes(m, extraNotes)}${columnList(m.columns)}</header>`,
    '<main>',
    '<h2>Checks by run</h2>',
    filters(m),
    table(m),
    '<h2>Runs in detail</h2>',
    m.columns.map((c) => columnSection(c, m.rows)).join(''),
    '</main>',
    `<script>${MATRIX_SCRIPT}</script></body></html>\n`,
  ].join('');
}

function notes(m: Matrix, extra: readonly string[]): string {
  const out = [...extra];
  if (m.toolVersions.length > 1)
    out.push(
      `These runs come from cri-conform ${m.toolVersions.join(', ')}. A check may assert different things in each, so differing verdicts between them are shown, not called disagreements.`,
    );
  if (m.checkSetsDiffer)
    out.push('The columns ran different sets of checks; "not run" is a check a run did not select.');
  return out.map((n) => `<p class="known">${esc(n)}</p>`).join('');
}

function columnList(columns: readonly MatrixColumn[]): string {
  const items = columns
    .map(
      (c) =>
        `<li><a href="#run-${c.label}"><b>${c.label}</b></a>: ${esc(describeColumn(c))}` +
        runNotes(c)
          .map((n) => `<br><span class="known">${esc(n)}</span>`)
          .join('') +
        '</li>',
    )
    .join('');
  return `<ul class="columns">${items}</ul>`;
}

function filters(m: Matrix): string {
  const box = (group: string, value: string, label = value) =>
    `<label><input type="checkbox" data-group="${group}" value="${esc(value)}" checked> ${esc(label)}</label>`;
  const fieldset = (legend: string, boxes: string) =>
    `<fieldset><legend>${legend}</legend>${boxes}</fieldset>`;
  const suites = [...new Set(m.rows.map((r) => r.suite))];
  const levels = [...new Set(m.rows.map((r) => r.level))];
  const verdicts = VERDICT_ORDER.filter((v) => m.rows.some((r) => r.cells.includes(v)));
  return (
    '<div class="filters">' +
    fieldset('suite', suites.map((s) => box('suite', s)).join('')) +
    fieldset('verdict in any column', verdicts.map((v) => box('verdict', v)).join('')) +
    fieldset('level', levels.map((l) => box('level', l)).join('')) +
    '<fieldset><legend>rows</legend><label><input type="checkbox" id="only-differing"> only where columns differ</label></fieldset>' +
    '<span id="shown"></span></div>'
  );
}

function table(m: Matrix): string {
  const head =
    '<tr><th>check</th><th>level</th><th class="title">title</th>' +
    m.columns
      .map(
        (c) =>
          `<th class="col" title="${esc(describeColumn(c))}"><a href="#run-${c.label}">${c.label}</a><br>` +
          `${esc(c.runtime)}<br><span class="sub">NRI ${esc(c.nriVersions.join('/'))}</span>` +
          `<br><span class="sub">${esc(nodesShort(c))}</span><br><span class="sub">${esc(dates(c))}</span>` +
          (m.toolVersions.length > 1
            ? `<br><span class="sub tool">cri-conform ${esc(c.toolVersion)}</span>`
            : '') +
          '</th>',
      )
      .join('') +
    '</tr>';
  const rows = m.rows.map((r) => row(r, m.columns)).join('');
  return `<div class="scroll"><table class="runs">${head}${rows}</table></div>`;
}

function dates(c: MatrixColumn): string {
  const days = [...new Set(c.runs.map((r) => r.outcome.properties.startedAt.slice(0, 10)))].sort();
  return days.length === 1 ? (days[0] ?? '') : `${days[0]} to ${days.at(-1)}`;
}

function nodesShort(c: MatrixColumn): string {
  const nodes = [...new Set(c.runs.map((r) => r.node))];
  return nodes.length === 1 ? (nodes[0] ?? '') : `${nodes.length} nodes`;
}

function row(r: MatrixRow, columns: readonly MatrixColumn[]): string {
  const present = [...new Set(r.cells.filter((v) => v !== undefined))];
  const mark = r.state === 'same' ? '' : `<span class="mark" title="${STATE_WORDS[r.state]}"></span>`;
  const cells = r.cells
    .map((v, i) => {
      const c = columns[i] as MatrixColumn;
      if (v === undefined) return '<td class="cell not-run" title="not in this run\'s checks">not run</td>';
      const cls = `cell v-${v}${r.disagreeing[i] ? ' disagree' : ''}`;
      const why = r.disagreeing[i] ? ` title="${STATE_WORDS.disagrees}"` : '';
      return `<td class="${cls}"${why}><a href="#${anchor(c, r.id)}">${v}</a></td>`;
    })
    .join('');
  return (
    `<tr class="row ${r.state}" data-suite="${esc(r.suite)}" data-level="${esc(r.level)}" ` +
    `data-verdicts="${present.join(' ')}" data-state="${r.state}">` +
    `<td class="id">${mark}${esc(r.id)}</td><td>${esc(r.level)}</td><td class="title">${esc(r.title)}</td>${cells}</tr>`
  );
}

function anchor(c: MatrixColumn, id: string): string {
  return `${c.label}-${id}`;
}

function columnSection(c: MatrixColumn, rows: readonly MatrixRow[]): string {
  const first = c.runs[0] as MatrixRun;
  // A Sonobuoy node directory names the node; the run itself only knows its host name.
  const props = runPropertyRows(first.outcome)
    .map(([k, v]) => (k === 'node' ? [k, first.node] : [k, v]))
    .map(([k, v]) => `<dt>${k}</dt><dd>${esc(v ?? '')}</dd>`)
    .join('');
  const others =
    c.runs.length > 1
      ? `<p>${c.runs.length} runs gave these verdicts; the sections below are ${esc(c.runs[0]?.node ?? '')}'s. ` +
        `Nodes: ${esc([...new Set(c.runs.map((r) => r.node))].join(', '))}.</p>`
      : '';
  const checks = rows
    .flatMap((r) => {
      const result = c.results.get(r.id);
      return result ? [renderCheck(result, false, anchor(c, r.id))] : [];
    })
    .join('');
  return (
    // The column's letter before each check ID, so a check opened from a cell says whose it is.
    `<section class="run" id="run-${c.label}" style="--column: '${c.label}'"><h3>${c.label}: ${esc(c.runtime)}</h3>` +
    `<dl class="props">${props}</dl>${others}${checks}</section>`
  );
}
