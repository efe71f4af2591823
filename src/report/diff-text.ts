/** The console form of a RunDiff: both sides, then one table row per changed check, then durations. */
import type { RunDiff, RunSide } from './diff.js';
import { formatMs } from './text.js';

const MARK: Record<string, string> = {
  regression: '✘ regression',
  fix: '✔ fix',
  changed: '~ changed',
  new: '+ new',
  removed: '- removed',
};

export function diffLines(d: RunDiff): string[] {
  const lines = [`old: ${side(d.old)}`, `new: ${side(d.new)}`];
  if (d.old.runtime !== d.new.runtime) lines.push('note: the two runs are of different runtimes or versions');
  lines.push('');
  if (d.changes.length === 0) {
    lines.push('no verdict changed');
  } else {
    const rows = d.changes.map((c) => [MARK[c.kind] ?? c.kind, c.id, c.old ?? '—', c.new ?? '—', c.title]);
    lines.push(...table(['change', 'check', 'old', 'new', 'title'], rows));
  }
  if (d.durations.length > 0) {
    lines.push('', 'durations that moved:');
    const rows = d.durations.map((c) => [
      c.id,
      formatMs(c.oldMs),
      formatMs(c.newMs),
      ratio(c.oldMs, c.newMs),
    ]);
    lines.push(...table(['check', 'old', 'new', 'change'], rows));
  }
  lines.push('', d.regressions === 0 ? 'no regressions' : `${d.regressions} regression(s)`);
  return lines;
}

function side(s: RunSide): string {
  const tail = s.notStarted !== undefined ? ` (did not start: ${s.notStarted})` : '';
  return `${s.runtime}, cri-conform ${s.toolVersion}, ${s.startedAt}${tail}`;
}

function ratio(oldMs: number, newMs: number): string {
  const pct = Math.round(((newMs - oldMs) / Math.max(oldMs, 1)) * 100);
  return `${pct > 0 ? '+' : ''}${pct}%`;
}

/** Columns padded to their widest cell; the last column is left free so long titles do not pad. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .slice(0, 200);
  return [fmt(header), ...rows.map(fmt)];
}
