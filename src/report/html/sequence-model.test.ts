import { expect } from 'chai';
import type { TimelineEntry } from '../../harness/check/result.js';
import { buildSequence, GAP_MS } from './sequence-model.js';
import { renderSegmentSvg } from './sequence-svg.js';

const nri = (seq: number, atMs: number, plugin: string, event: string, note?: string): TimelineEntry => ({
  kind: 'nri',
  seq,
  atMs,
  plugin,
  event,
  podId: 'p1',
  podName: 'pod-a',
  ...(note ? { note } : {}),
});
const call = (seq: number, atMs: number, code = 'OK', latencyMs = 5): TimelineEntry => ({
  kind: 'cri',
  seq,
  atMs,
  method: 'StopPodSandbox',
  ids: 'pod=p1',
  deadlineMs: 2_000,
  latencyMs,
  code,
});
const note = (seq: number, atMs: number, text: string): TimelineEntry => ({ kind: 'note', seq, atMs, text });

describe('sequence model', () => {
  it('has a lane for the client, the runtime and each plugin, ordered by index', () => {
    const m = buildSequence([nri(2, 1, '20-b', 'StopPodSandbox'), nri(1, 1, '10-a', 'StopPodSandbox')]);
    expect(m.lanes.map((l) => l.key)).to.deep.equal(['client', 'runtime', 'nri:10', 'nri:20']);
  });

  it('draws a call, its reply after its latency, events and faults in time order', () => {
    const m = buildSequence([
      call(1, 0, 'UNKNOWN', 50),
      nri(2, 10, '10-a', 'StopPodSandbox', 'fault: error'),
    ]);
    const steps = m.segments[0]!.steps;
    expect(steps.map((s) => s.kind)).to.deep.equal(['call', 'event', 'fault', 'reply']);
    expect(steps[3]).to.include({ label: 'UNKNOWN 50ms', ok: false });
    expect(steps[2]).to.include({ label: '✗ error reply' });
  });

  it('compresses a long quiet stretch into one labelled gap', () => {
    const m = buildSequence([note(1, 0, 'a'), note(2, GAP_MS + 2_000, 'b'), note(3, GAP_MS + 2_010, 'c')]);
    const steps = m.segments[0]!.steps;
    expect(steps.map((s) => s.kind)).to.deep.equal(['note', 'gap', 'note', 'note']);
    expect(renderSegmentSvg(m.lanes, m.segments[0]!)).to.contain('⋯ 2.2s');
  });

  it('splits trials apart and marks the violating one', () => {
    const m = buildSequence([
      note(1, 0, 'start X'),
      note(2, 1, 'trial 1 of 2'),
      call(3, 2),
      note(4, 9, 'trial 1: held'),
      note(5, 10, 'trial 2 of 2'),
      call(6, 11),
      note(7, 20, 'trial 2: violated: the sandbox was listed twice'),
    ]);
    expect(m.segments.map((s) => [s.title, s.violation])).to.deep.equal([
      ['before the trials', undefined],
      ['trial 1 of 2', undefined],
      ['trial 2 of 2', 'the sandbox was listed twice'],
    ]);
  });

  it('escapes text from the runtime in the SVG', () => {
    const m = buildSequence([note(1, 0, '<script>"x" & y</script>')]);
    const svg = renderSegmentSvg(m.lanes, m.segments[0]!);
    expect(svg).not.to.contain('<script>');
    expect(svg).to.contain('&lt;script&gt;&quot;x&quot; &amp; y');
  });
});
