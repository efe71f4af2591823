import { expect } from 'chai';
import type { CheckResult, Verdict } from '../check/result.js';
import { parseDeviations } from './deviation-file.js';
import {
  applyDeviations,
  type DeviationSets,
  staleDeviations,
  unseenRaces,
  withCurrentKnownIssues,
} from './deviations.js';

const FILE = `
- id: TEAR-05
  runtime: containerd
  versions: ">=1.7.0 <1.8.0"
  message: plugin 20 got .*; missing StopPodSandbox
  reason: the relay stops at the first plugin error
  link: https://github.com/containerd/containerd/issues/1
  proposal: https://github.com/containerd/nri/pull/286
`;
const BUNDLED = `
- id: IDEM-05
  runtime: containerd
  versions: ">=1.7.0 <2.2.0"
  message: failed to reserve container name
  reason: a timed-out CreateContainer keeps the name
  link: https://github.com/containerd/containerd/issues/4604
`;
const CONTAINERD_17 = { name: 'containerd', version: '1.7.24~ds1' };
const TEAR05_FAILURE =
  'plugin 20 got [RunPodSandbox#1]; missing StopPodSandbox (plugin 10 answered each with error)';

function result(id: string, verdict: Verdict, message?: string): CheckResult {
  return {
    id,
    suite: 'teardown',
    title: `${id} title`,
    level: 'MUST',
    tags: [],
    contract: 'a contract',
    verdict,
    durationMs: 10,
    ...(message === undefined ? {} : { message }),
    observations: {},
    timeline: [],
  };
}

const sets = (expected: string, bundled = ''): DeviationSets => ({
  expected: parseDeviations(expected, 'devs.yaml'),
  bundled: parseDeviations(bundled, 'bundled.yaml'),
});

describe('expected deviations applied to results', () => {
  it('turns a failure into a deviation when check, runtime, version and message all match', () => {
    const r = applyDeviations(result('TEAR-05', 'failed', TEAR05_FAILURE), sets(FILE), CONTAINERD_17);
    expect(r.verdict).to.equal('deviation');
    expect(r.message).to.equal(
      'expected deviation: the relay stops at the first plugin error https://github.com/containerd/containerd/issues/1 https://github.com/containerd/nri/pull/286',
    );
    expect(r.detail).to.equal(TEAR05_FAILURE);
    expect(r.knownIssue?.links[0]).to.equal('https://github.com/containerd/containerd/issues/1');
  });

  it('names both entries when the failure rests on two known bugs met at once', () => {
    const both = `${FILE}- id: TEAR-05
  runtime: containerd
  versions: ">=1.7.0"
  message: ^a shim of [0-9a-f]+ is alive$
  reason: the rollback loses the shim
  link: https://github.com/containerd/containerd/issues/2
`;
    const failure: CheckResult = {
      ...result('TEAR-05', 'failed', `${TEAR05_FAILURE}; a shim of 5d3c is alive`),
      violations: [
        { clause: 'c', message: TEAR05_FAILURE, known: true, trials: [2] },
        { clause: 'c', message: 'a shim of 5d3c is alive', known: true, trials: [2] },
      ],
    };
    const r = applyDeviations(failure, sets(both), CONTAINERD_17);
    expect(r.verdict).to.equal('deviation');
    expect(r.message).to.equal(
      'expected deviation: the relay stops at the first plugin error https://github.com/containerd/containerd/issues/1 https://github.com/containerd/nri/pull/286; and: the rollback loses the shim https://github.com/containerd/containerd/issues/2',
    );
    expect(r.violations?.map((v) => v.knownIssue?.links[0])).to.deep.equal([
      'https://github.com/containerd/containerd/issues/1',
      'https://github.com/containerd/containerd/issues/2',
    ]);
    const netns = { clause: 'c', message: 'a netns of 5d3c still exists', known: false };
    const oneUnknown = { ...failure, violations: [...(failure.violations ?? []), netns] };
    const stillFailed = applyDeviations(oneUnknown, sets(both), CONTAINERD_17);
    expect(stillFailed.verdict).to.equal('failed');
    expect(stillFailed.knownIssue, 'the failure as a whole is not known').to.equal(undefined);
    expect(
      stillFailed.violations?.map((v) => v.knownIssue?.links[0]),
      'each violation still names the bug that explains it, and the new one none',
    ).to.deep.equal([
      'https://github.com/containerd/containerd/issues/1',
      'https://github.com/containerd/containerd/issues/2',
      undefined,
    ]);
  });

  it('keeps a different failure of the same check a FAIL, and notes that the entry did not match it', () => {
    const other = 'plugin 20 got [RunPodSandbox#1]; missing RemovePodSandbox';
    const r = applyDeviations(result('TEAR-05', 'failed', other), sets(FILE), CONTAINERD_17);
    expect(r.verdict).to.equal('failed');
    expect(r.message).to.equal(other);
    expect(r.knownIssue).to.equal(undefined);
    expect(r.observations.deviation).to.match(/devs\.yaml entry 1.*does not match/);
  });

  const misses: { why: string; runtime: { name: string; version: string }; id: string }[] = [
    { why: 'another runtime', runtime: { name: 'cri-o', version: '1.7.24' }, id: 'TEAR-05' },
    { why: 'a version outside the range', runtime: { name: 'containerd', version: '1.8.0' }, id: 'TEAR-05' },
    { why: 'another check', runtime: CONTAINERD_17, id: 'TEAR-06' },
  ];
  for (const { why, runtime, id } of misses) {
    it(`keeps the failure a FAIL on ${why}`, () => {
      const r = applyDeviations(result(id, 'failed', TEAR05_FAILURE), sets(FILE), runtime);
      expect(r.verdict).to.equal('failed');
    });
  }

  it('matches the runtime name without regard to case', () => {
    const r = applyDeviations(result('TEAR-05', 'failed', TEAR05_FAILURE), sets(FILE), {
      name: 'Containerd',
      version: '1.7.2',
    });
    expect(r.verdict).to.equal('deviation');
  });

  it('names a bundled known issue next to a failure without changing the verdict', () => {
    const failure = 'did not converge: #1 UNKNOWN: failed to reserve container name "x"';
    const r = applyDeviations(result('IDEM-05', 'failed', failure), sets('', BUNDLED), CONTAINERD_17);
    expect(r.verdict).to.equal('failed');
    expect(r.message).to.equal(failure);
    expect(r.knownIssue).to.deep.equal({
      reason: 'a timed-out CreateContainer keeps the name',
      links: ['https://github.com/containerd/containerd/issues/4604'],
    });
  });

  it('names no known issue for a bundled entry whose message does not match', () => {
    const r = applyDeviations(
      result('IDEM-05', 'failed', 'the container is EXITED'),
      sets('', BUNDLED),
      CONTAINERD_17,
    );
    expect(r.knownIssue).to.equal(undefined);
  });

  it('flags a listed check that passed, and leaves skips and errors alone', () => {
    const passed = applyDeviations(result('TEAR-05', 'passed'), sets(FILE), CONTAINERD_17);
    expect(passed.verdict).to.equal('passed');
    expect(passed.observations.deviation).to.match(/listed as an expected deviation but passed/);
    for (const verdict of ['skipped', 'error'] as const) {
      const r = result('TEAR-05', verdict, TEAR05_FAILURE);
      expect(applyDeviations(r, sets(FILE), CONTAINERD_17)).to.deep.equal(r);
    }
  });
});

describe('stale expected deviations', () => {
  const stale = (r: CheckResult, runtime = CONTAINERD_17) => {
    const s = sets(FILE);
    return staleDeviations(s.expected, [applyDeviations(r, s, runtime)], runtime);
  };

  it('are none when the entry matched a failure', () => {
    expect(stale(result('TEAR-05', 'failed', TEAR05_FAILURE))).to.deep.equal([]);
  });

  it('include an entry whose check passed, with the check id first and the link', () => {
    expect(stale(result('TEAR-05', 'passed'))).to.deep.equal([
      'TEAR-05 (containerd >=1.7.0 <1.8.0): the check passed; devs.yaml entry 1, https://github.com/containerd/containerd/issues/1',
    ]);
  });

  it('include an entry whose check failed differently', () => {
    const [line] = stale(result('TEAR-05', 'failed', 'plugin 20 got nothing'));
    expect(line).to.match(/^TEAR-05 .*its failure does not match/);
  });

  it('are none when the known deviation showed beside another failure of the check, matched in its own words', () => {
    const failed = result('TEAR-05', 'failed', 'violated in trial 2 of 20: plugin 30 got nothing');
    const r = {
      ...failed,
      violations: [
        { clause: 'later-plugin', message: 'plugin 30 got nothing', known: false },
        { clause: 'later-plugin', message: TEAR05_FAILURE, known: true },
      ],
    };
    expect(stale(r)).to.deep.equal([]);
    expect(applyDeviations(r, sets(FILE), CONTAINERD_17).verdict).to.equal('failed');
  });

  it('leave out entries whose check did not reach a verdict, or that concern another runtime or version', () => {
    expect(stale(result('TEAR-05', 'skipped', 'needs NRI'))).to.deep.equal([]);
    expect(stale(result('TEAR-05', 'error', 'setup failed'))).to.deep.equal([]);
    expect(stale(result('TEAR-06', 'passed'))).to.deep.equal([]);
    expect(stale(result('TEAR-05', 'passed'), { name: 'containerd', version: '2.1.9' })).to.deep.equal([]);
  });
});

describe('race entries that matched nothing', () => {
  const RACE = `${FILE}  race: true
`;
  const lists = (r: CheckResult) => {
    const s = sets(RACE);
    const results = [applyDeviations(r, s, CONTAINERD_17)];
    return {
      stale: staleDeviations(s.expected, results, CONTAINERD_17),
      unseen: unseenRaces(s.expected, results, CONTAINERD_17),
    };
  };

  it('are not stale when their check passed: one run of a race proves nothing, and says the trials it ran', () => {
    const passed = { ...result('TEAR-05', 'passed'), trials: { run: 40, violated: 0 } };
    expect(lists(passed)).to.deep.equal({
      stale: [],
      unseen: [
        'TEAR-05 (containerd >=1.7.0 <1.8.0): the check passed in 40 trials; devs.yaml entry 1, https://github.com/containerd/containerd/issues/1',
      ],
    });
  });

  it('are not stale when their check failed through another bug', () => {
    const { stale, unseen } = lists(result('TEAR-05', 'failed', 'plugin 20 got nothing'));
    expect(stale).to.deep.equal([]);
    expect(unseen[0]).to.match(/^TEAR-05 .*its failure does not match/);
  });

  it('are neither when the race showed', () => {
    expect(lists(result('TEAR-05', 'failed', TEAR05_FAILURE))).to.deep.equal({ stale: [], unseen: [] });
  });
});

describe('a recorded run with the known issues named today', () => {
  const drafted = parseDeviations(
    `- id: IDEM-15
  runtime: cri-o
  versions: ">=1.33.0"
  message: concurrent StopPodSandbox calls
  reason: the stops are not serialised
  draft: docs/upstream/cri-o-IDEM-15.md
`,
    'b.yaml',
  );
  const run = (results: CheckResult[]) => ({
    properties: { runtimeName: 'cri-o', runtimeVersion: '1.36.3' },
    results,
  });

  it('names the entry that matches a failure now, drafted after the run, and leaves other results alone', () => {
    const failed = result('IDEM-15', 'failed', 'concurrent StopPodSandbox calls: 1a: OK / UNKNOWN');
    const passed = result('TEAR-05', 'passed');
    const outcome = withCurrentKnownIssues(run([failed, passed]) as never, drafted);
    expect(outcome.results[0]?.knownIssue).to.deep.equal({
      reason: 'the stops are not serialised',
      links: [],
      draft: 'docs/upstream/cri-o-IDEM-15.md',
    });
    expect(outcome.results[1]).to.equal(passed);
  });

  it('keeps what the run recorded for a failure no bundled entry matches', () => {
    const mine = { reason: 'from my own file', links: ['https://example.com/9'] };
    const failed = { ...result('TEAR-05', 'failed', 'plugin 20 got []'), knownIssue: mine };
    expect(withCurrentKnownIssues(run([failed]) as never, drafted).results[0]?.knownIssue).to.equal(mine);
  });

  it("names today's entry beside each recorded violation it matches, and keeps what another had", () => {
    const mine = { reason: 'from my own file', links: ['https://example.com/9'] };
    const failed: CheckResult = {
      ...result('IDEM-15', 'failed', 'two violations'),
      violations: [
        { clause: 'a', message: 'concurrent StopPodSandbox calls: 1a: OK / UNKNOWN', known: true },
        { clause: 'b', message: 'a shim is alive', known: true, knownIssue: mine },
      ],
    };
    const [read] = withCurrentKnownIssues(run([failed]) as never, drafted).results;
    expect(read?.violations?.map((v) => v.knownIssue?.reason)).to.deep.equal([
      'the stops are not serialised',
      'from my own file',
    ]);
  });
});
