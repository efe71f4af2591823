import { expect } from 'chai';
import { renderJson } from './json.js';
import { parseResults } from './read-results.js';
import { HOOK_LANE, result, sampleOutcome, TIMELINE } from './sample-outcome.test.helper.js';

describe('renderJson', () => {
  it("writes what the machine's CPUs did during the run, and reads it back", () => {
    const cpu = { cores: 2, busySeconds: 963.2, busyPct: 94, floorMs: 481_600, toolSeconds: 32.7 };
    const report = JSON.parse(renderJson({ ...sampleOutcome(), cpu }));
    expect(report.cpu).to.deep.equal(cpu);
    expect(parseResults(report, 'results.json').cpu).to.deep.equal(cpu);
    expect(parseResults({ ...report, cpu: null }, 'results.json').cpu).to.equal(undefined);
  });

  it('writes how long the checks took the hook lane, and reads it back', () => {
    const report = JSON.parse(renderJson({ ...sampleOutcome(), hookLane: HOOK_LANE }));
    expect(report.hookLane).to.deep.equal(HOOK_LANE);
    expect(parseResults(report, 'results.json').hookLane).to.deep.equal(HOOK_LANE);
    expect(JSON.parse(renderJson(sampleOutcome())).hookLane, 'no check held a hook in turn').to.equal(null);
    expect(parseResults({ ...report, hookLane: null }, 'results.json').hookLane).to.equal(undefined);
  });

  it('writes the stable top-level fields and a summary per verdict', () => {
    const report = JSON.parse(renderJson(sampleOutcome()));
    expect(Object.keys(report)).to.deep.equal([
      'schemaVersion',
      'properties',
      'durationMs',
      'interrupted',
      'notStarted',
      'staleDeviations',
      'runtimeCrashes',
      'cpu',
      'hookLane',
      'summary',
      'results',
    ]);
    expect(report.schemaVersion).to.equal(9);
    expect(report.runtimeCrashes).to.equal(null);
    expect(report.cpu, 'no cpu record off the runtime node').to.equal(null);
    expect(report.interrupted).to.equal(null);
    expect(report.durationMs).to.equal(65_432);
    expect(report.summary).to.deep.equal({
      passed: 1,
      failed: 1,
      error: 1,
      skipped: 1,
      deviation: 1,
      observed: 1,
    });
    expect(report.properties.runtimeName).to.equal('containerd');
  });

  it('gives every result the same fields, with null for what does not apply', () => {
    const report = JSON.parse(renderJson(sampleOutcome()));
    const [passed, failed] = report.results;
    expect(Object.keys(passed)).to.deep.equal([
      'id',
      'suite',
      'title',
      'level',
      'tags',
      'contract',
      'verdict',
      'durationMs',
      'startedAt',
      'message',
      'detail',
      'observations',
      'trials',
      'requiredWaitMs',
      'floorMs',
      'knownIssue',
      'violations',
      'notRun',
      'timeline',
    ]);
    expect(passed).to.include({
      id: 'IDEM-01',
      verdict: 'passed',
      message: null,
      detail: null,
      trials: null,
      notRun: null,
    });
    expect(failed.timeline).to.have.length(3);
    expect(failed.timeline[1]).to.deep.include({
      kind: 'nri',
      containerId: null,
      containerName: null,
      note: 'fault: hang',
      trial: null,
    });
    expect(report.results[5].trials).to.deep.equal({ run: 5, violated: 0, atOnce: 4 });
    expect(report.results[5].floorMs).to.deep.equal({ sideBySide: 2_400, serial: 6_000 });
    expect(failed.floorMs).to.equal(null);
  });

  it('keeps the interruption reason and strips ANSI codes from messages', () => {
    const outcome = sampleOutcome();
    outcome.interrupted = 'SIGINT';
    outcome.results = [
      result({
        id: 'X-01',
        verdict: 'failed',
        message: '\u001b[31mexpected\u001b[39m 1',
        timeline: [{ ...TIMELINE[0]!, kind: 'cri', deadlineMs: undefined } as (typeof TIMELINE)[number]],
      }),
    ];
    const report = JSON.parse(renderJson(outcome));
    expect(report.interrupted).to.equal('SIGINT');
    expect(report.results[0].message).to.equal('expected 1');
    expect(report.results[0].timeline[0].deadlineMs).to.equal(null);
  });

  it("writes each violation's known issue, null where no entry matches it, and reads it back", () => {
    const bug = { reason: 'the rollback loses the shim', links: ['https://github.com/o/r/issues/2'] };
    const outcome = sampleOutcome();
    const failed = result({ id: 'IDEM-14', verdict: 'failed', message: 'two' });
    failed.violations = [
      { clause: 'a', message: 'a shim is alive', known: true, knownIssue: bug },
      { clause: 'b', message: 'a netns is left', known: false },
    ];
    outcome.results = [failed];
    const report = JSON.parse(renderJson(outcome));
    expect(report.results[0].violations.map((v: { knownIssue: unknown }) => v.knownIssue)).to.deep.equal([
      { ...bug, draft: null },
      null,
    ]);
    const read = parseResults(report, 'results.json').results[0];
    expect(read?.violations?.map((v) => v.knownIssue)).to.deep.equal([bug, undefined]);
  });
});
