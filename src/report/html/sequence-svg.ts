/**
 * Draws one segment of a sequence model as an inline SVG: lanes as vertical lines with a head, time running
 * down one row per step, calls as solid arrows, replies as dashed ones (red when not OK), NRI faults in red,
 * the runtime's busy time as bars, and compressed gaps as labelled bands. Our own code: the diagram is a
 * handful of lines and labels, and a library would add a runtime dependency or a script to the page.
 */
import { clip, esc } from './escape.js';
import { fmt, type Lane, type Segment, type Step } from './sequence-model.js';

const LANE_GAP = 230;
const LEFT = 70; // room for the time column
const HEAD = 34;
const ROW = 22;
const GAP_ROW = 18;
const LABEL_CHARS = 36;
const MIN_WIDTH = 900;
/** Monospace 11px: about 6.6 px per character. */
const CHAR_PX = 6.6;

interface Placed {
  step: Step;
  y: number;
}

export function renderSegmentSvg(lanes: readonly Lane[], segment: Segment): string {
  const x = new Map(lanes.map((l, i) => [l.key, LEFT + 60 + i * LANE_GAP]));
  const xOf = (key: string) => x.get(key) ?? LEFT;
  const placed: Placed[] = [];
  let y = HEAD + 10;
  for (const step of segment.steps) {
    y += step.kind === 'gap' ? GAP_ROW : ROW;
    placed.push({ step, y });
  }
  const height = y + 14;
  const width = Math.max(MIN_WIDTH, LEFT + 60 + (lanes.length - 1) * LANE_GAP + 170);
  const parts: string[] = [];
  for (const lane of lanes) {
    const lx = xOf(lane.key);
    parts.push(
      `<line class="lane" x1="${lx}" y1="${HEAD}" x2="${lx}" y2="${height}"/>`,
      `<rect class="lane-head" x="${lx - 75}" y="4" width="150" height="22" rx="4"/>`,
      `<text class="lane-label" x="${lx}" y="19">${esc(clip(lane.label, 24))}<title>${esc(lane.label)}</title></text>`,
    );
  }
  parts.push(...busyBars(placed, xOf('runtime')));
  for (const p of placed) parts.push(drawStep(p, xOf, width));
  return (
    `<svg class="seq" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" role="img" aria-label="sequence diagram">${parts.join('')}</svg>`
  );
}

/** The runtime is busy from each call to its reply: one bar per call, so overlapping calls show. */
function busyBars(placed: readonly Placed[], runtimeX: number): string[] {
  const starts = new Map<number, number>();
  const bars: string[] = [];
  for (const { step, y } of placed) {
    if (step.kind === 'call') starts.set(step.callId, y);
    if (step.kind === 'reply') {
      const from = starts.get(step.callId);
      if (from !== undefined) {
        bars.push(
          `<rect class="busy" x="${runtimeX - 4}" y="${from}" width="8" height="${Math.max(2, y - from)}"/>`,
        );
      }
    }
  }
  return bars;
}

function drawStep({ step, y }: Placed, xOf: (key: string) => number, width: number): string {
  switch (step.kind) {
    case 'gap':
      return (
        `<rect class="gap" x="0" y="${y - GAP_ROW + 3}" width="${width}" height="${GAP_ROW - 6}"/>` +
        `<text class="gap-label" x="${LEFT - 6}" y="${y - 5}">⋯ ${fmt(step.ms)}</text>`
      );
    case 'note':
      return (
        time(step.atMs, y) +
        `<text class="note" x="${xOf('client') + 8}" y="${y - 6}">${esc(clip(step.text, Math.floor((width - xOf('client') - 16) / CHAR_PX)))}<title>${esc(step.text)}</title></text>`
      );
    case 'call':
      return time(step.atMs, y) + arrow(xOf('client'), xOf(step.to), y, 'call', step.label, step.detail);
    case 'reply':
      return (
        time(step.atMs, y) +
        arrow(xOf(step.from), xOf('client'), y, step.ok ? 'reply' : 'reply bad', step.label, step.detail)
      );
    case 'event':
      return time(step.atMs, y) + arrow(xOf('runtime'), xOf(step.to), y, 'event', step.label, step.detail);
    case 'fault':
      return time(step.atMs, y) + arrow(xOf(step.from), xOf('runtime'), y, 'fault', step.label, step.detail);
  }
}

function time(atMs: number, y: number): string {
  return `<text class="t" x="${LEFT - 6}" y="${y - 6}">+${fmt(atMs)}</text>`;
}

function arrow(x1: number, x2: number, y: number, cls: string, label: string, detail: string): string {
  const dir = x2 >= x1 ? 1 : -1;
  const tip = `${x2},${y} ${x2 - 7 * dir},${y - 4} ${x2 - 7 * dir},${y + 4}`;
  const mid = (x1 + x2) / 2;
  return (
    `<g class="${cls}"><title>${esc(detail)}</title>` +
    `<line x1="${x1}" y1="${y}" x2="${x2 - 6 * dir}" y2="${y}"/><polygon points="${tip}"/>` +
    `<text x="${mid}" y="${y - 4}">${esc(clip(label, LABEL_CHARS))}</text></g>`
  );
}
