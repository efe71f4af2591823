/**
 * A check's timeline as sequence-diagram steps: lanes (the cri-conform client, the runtime, each NRI plugin
 * by index), CRI calls and replies, NRI events and their faults, notes, and compressed gaps. Trials run side
 * by side, so their entries interleave: each entry names its trial, and a trial's diagram has its own
 * entries only. Files from before entries named their trial (schema 4 and older) are split on the notes
 * the harness writes at each trial's start ("trial 2 of 5") and end ("trial 2: held" or "trial 2:
 * violated: ..."). Pure: no markup here.
 */
import type { TimelineEntry } from '../../harness/check/result.js';
import { formatTimelineEntry } from '../text.js';

export interface Lane {
  key: string; // 'client', 'runtime' or 'nri:<index>'
  label: string;
}

export type Step =
  | { kind: 'call'; atMs: number; to: string; label: string; detail: string; callId: number }
  | { kind: 'reply'; atMs: number; from: string; label: string; ok: boolean; detail: string; callId: number }
  | { kind: 'event'; atMs: number; to: string; label: string; detail: string }
  | { kind: 'fault'; atMs: number; from: string; label: string; detail: string }
  | { kind: 'note'; atMs: number; text: string }
  | { kind: 'gap'; ms: number };

export interface Segment {
  /** 'before the trials', 'trial 2 of 5', or '' for a check without trials. */
  title: string;
  /** Set for a trial that violated the contract: the harness's message. */
  violation?: string;
  steps: Step[];
  /** Steps left out past the cap; the text timeline has them all. */
  omitted: number;
}

export interface SequenceModel {
  lanes: Lane[];
  segments: Segment[];
}

/** A gap between two steps longer than this is drawn as one labelled band instead of to scale. */
export const GAP_MS = 200;
/** More steps than this in one segment are left out of the drawing (the text timeline keeps them). */
export const MAX_STEPS = 300;

const TRIAL_START = /^trial (\d+) of (\d+)$/;
const TRIAL_END = /^trial (\d+): (.*)$/s;

export function buildSequence(timeline: readonly TimelineEntry[]): SequenceModel {
  const plugins = new Map<number, string>();
  for (const e of timeline) {
    if (e.kind === 'nri') plugins.set(pluginIndex(e.plugin), e.plugin);
  }
  const lanes: Lane[] = [
    { key: 'client', label: 'cri-conform' },
    { key: 'runtime', label: 'runtime' },
    ...[...plugins.entries()]
      .sort(([a], [b]) => a - b)
      .map(([idx, name]) => ({ key: `nri:${idx}`, label: `plugin ${name}` })),
  ];
  return { lanes, segments: splitTrials(timeline).map(toSegment) };
}

/** A trial's (or the whole check's) timeline entries, before they become diagram steps. */
export interface RawSegment {
  title: string;
  violation?: string;
  entries: TimelineEntry[];
}

export function splitTrials(timeline: readonly TimelineEntry[]): RawSegment[] {
  if (timeline.some((e) => e.trial !== undefined)) return byTrialField(timeline);
  const hasTrials = timeline.some((e) => e.kind === 'note' && TRIAL_START.test(e.text));
  if (!hasTrials) return [{ title: '', entries: [...timeline] }];
  const segments: RawSegment[] = [{ title: 'before the trials', entries: [] }];
  for (const e of timeline) {
    const start = e.kind === 'note' ? TRIAL_START.exec(e.text) : null;
    if (start) segments.push({ title: `trial ${start[1]} of ${start[2]}`, entries: [] });
    const current = segments.at(-1) as RawSegment;
    current.entries.push(e);
    markViolation(current, e);
  }
  return segments.filter((s) => s.entries.length > 0);
}

/** Entries that name their trial: one segment per trial, in trial order, with the check's own around them. */
function byTrialField(timeline: readonly TimelineEntry[]): RawSegment[] {
  const before: RawSegment = { title: 'before the trials', entries: [] };
  const after: RawSegment = { title: 'after the trials', entries: [] };
  const trials = new Map<number, RawSegment>();
  let planned = '';
  for (const e of timeline) {
    if (e.trial === undefined) {
      (trials.size === 0 ? before : after).entries.push(e);
      continue;
    }
    const start = e.kind === 'note' ? TRIAL_START.exec(e.text) : null;
    if (start) planned = start[2] ?? planned;
    const segment = trials.get(e.trial) ?? { title: '', entries: [] };
    trials.set(e.trial, segment);
    segment.entries.push(e);
    markViolation(segment, e);
  }
  const ordered = [...trials].sort(([a], [b]) => a - b);
  for (const [n, segment] of ordered) segment.title = planned ? `trial ${n} of ${planned}` : `trial ${n}`;
  return [before, ...ordered.map(([, s]) => s), after].filter((s) => s.entries.length > 0);
}

function markViolation(segment: RawSegment, e: TimelineEntry): void {
  const end = e.kind === 'note' ? TRIAL_END.exec(e.text) : null;
  if (end?.[2]?.startsWith('violated')) segment.violation = end[2].replace(/^violated:\s*/, '');
}

function toSegment(raw: RawSegment): Segment {
  const timed: { atMs: number; order: number; step: Step }[] = [];
  let callId = 0;
  for (const e of raw.entries) {
    const detail = formatTimelineEntry(e);
    switch (e.kind) {
      case 'cri': {
        callId += 1;
        const deadline = e.deadlineMs === undefined ? '' : ` (deadline ${fmt(e.deadlineMs)})`;
        timed.push({
          atMs: e.atMs,
          order: e.seq,
          step: {
            kind: 'call',
            atMs: e.atMs,
            to: 'runtime',
            label: `${e.method}${deadline}`,
            detail,
            callId,
          },
        });
        const end = e.atMs + e.latencyMs;
        timed.push({
          atMs: end,
          order: e.seq + 0.5,
          step: {
            kind: 'reply',
            atMs: end,
            from: 'runtime',
            label: `${e.code} ${fmt(e.latencyMs)}`,
            ok: e.code === 'OK',
            detail,
            callId,
          },
        });
        break;
      }
      case 'nri': {
        const lane = `nri:${pluginIndex(e.plugin)}`;
        const on = e.containerName ? `${e.containerName}` : e.podName;
        timed.push({
          atMs: e.atMs,
          order: e.seq,
          step: { kind: 'event', atMs: e.atMs, to: lane, label: `${e.event} ${on}`, detail },
        });
        if (e.note) {
          timed.push({
            atMs: e.atMs,
            order: e.seq + 0.5,
            step: { kind: 'fault', atMs: e.atMs, from: lane, label: faultLabel(e.note), detail },
          });
        }
        break;
      }
      case 'note':
        timed.push({ atMs: e.atMs, order: e.seq, step: { kind: 'note', atMs: e.atMs, text: e.text } });
        break;
    }
  }
  timed.sort((a, b) => a.atMs - b.atMs || a.order - b.order);
  const steps: Step[] = [];
  let last: number | undefined;
  for (const { atMs, step } of timed.slice(0, MAX_STEPS)) {
    if (last !== undefined && atMs - last > GAP_MS) steps.push({ kind: 'gap', ms: atMs - last });
    last = atMs;
    steps.push(step);
  }
  return {
    title: raw.title,
    ...(raw.violation !== undefined ? { violation: raw.violation } : {}),
    steps,
    omitted: Math.max(0, timed.length - MAX_STEPS),
  };
}

/** The harness writes "fault: <kind>"; a crash is what the runtime sees as a disconnect. */
function faultLabel(note: string): string {
  const kind = note.replace(/^fault:\s*/, '');
  const words: Record<string, string> = {
    hang: 'hang: no reply',
    crash: 'disconnect',
    error: 'error reply',
  };
  return `✗ ${words[kind] ?? kind}`;
}

function pluginIndex(plugin: string): number {
  const n = Number.parseInt(plugin, 10);
  return Number.isNaN(n) ? 0 : n;
}

/** Compact durations for labels: "850ms", "2s", "1.5s". */
export function fmt(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const s = ms / 1_000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)}s`;
}
