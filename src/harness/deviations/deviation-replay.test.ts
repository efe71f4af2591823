import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { findPackageRoot } from '../../nri/package-root.js';
import { skipBecause } from '../../skip-reason.test.helper.js';
import { loadBundledDeviations, parseDeviations } from './deviation-file.js';
import {
  type ReplaySample,
  readSample,
  recordRun,
  replayDeviations,
  samplePath,
  scratchSamplePath,
} from './deviation-replay.js';

const entry = (id: string, message: string, versions = '>=2.1.0') =>
  parseDeviations(
    `- id: ${id}\n  runtime: containerd\n  versions: "${versions}"\n  message: '${message}'\n  reason: r\n  link: https://example.com/1\n`,
    'devs.yaml',
  );

const SAMPLE: ReplaySample = {
  about: 'unit test',
  runs: [
    {
      runtime: 'containerd',
      version: '2.1.9',
      recordedAt: '2026-11-26T06:00:00Z',
      messages: {
        'TEAR-05': [
          'plugin 20 got [RunPodSandbox#15]; missing StopPodSandbox (plugin 10 answered each with error)',
        ],
        'TEAR-08': [
          'violated in trial 2 of 20: plugin 10 was disconnected after the same with the client cancelling at its deadline',
        ],
      },
    },
  ],
};

describe('replaying the bundled deviations against recorded messages', () => {
  for (const runtime of ['containerd', 'cri-o']) {
    it(`finds every bundled ${runtime} entry live and narrow against the messages the checks wrote on ${runtime}`, () => {
      const root = findPackageRoot();
      const sample = readSample(samplePath(root, runtime));
      expect(sample.runs.map((r) => r.version).length, 'recorded runs').to.be.at.least(2);
      const entries = loadBundledDeviations(root).filter((d) => d.runtime === runtime);
      expect(entries, 'bundled entries').not.to.be.empty;
      expect(replayDeviations(entries, sample)).to.deep.equal([]);
    });
  }

  it('finds no message drift in the run the real-containerd e2e test just made', function () {
    // The e2e test (src/cli/containerd.e2e.test.ts) runs first in the same `npm test` and writes there.
    const dir = dirname(scratchSamplePath('containerd', '0.0'));
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
    if (files.length === 0) {
      if (process.env.CRI_CONFORM_E2E_ENV_FILES)
        expect.fail(`CRI_CONFORM_E2E_ENV_FILES is set, but the e2e test wrote no sample to ${dir}`);
      return skipBecause(this, 'no real containerd run in this npm test wrote a scratch sample');
    }
    const entries = loadBundledDeviations(findPackageRoot());
    const problems = files.flatMap((f) =>
      replayDeviations(entries, readSample(join(dir, f)), { fresh: true }).map((p) => `${f}: ${p}`),
    );
    expect(problems).to.deep.equal([]);
  });

  it("in a fresh sample, passes over an entry whose check failed only in another entry's race", () => {
    const fresh = (message: string): ReplaySample => ({
      about: 'unit test',
      runs: [
        { runtime: 'containerd', version: '2.1.9', recordedAt: 'now', messages: { 'IDEM-12': [message] } },
      ],
    });
    const both = [
      ...entry('IDEM-12', '^the identical CreateContainer did not converge'),
      ...entry('IDEM-12', '^the identical RunPodSandbox did not converge'),
    ];
    const container = fresh('the identical CreateContainer did not converge within 2000 ms');
    expect(replayDeviations(both, container, { fresh: true })).to.deep.equal([]);
    expect(
      replayDeviations(both, container),
      'the bundled sample keeps every entry to its own message',
    ).to.have.length(1);
    expect(replayDeviations(both, fresh('something else entirely'), { fresh: true })).to.have.length(2);
  });

  it('in a fresh sample, passes over a race entry whose check failed first through a bug no entry names', () => {
    const fresh: ReplaySample = {
      about: 'unit test',
      runs: [
        {
          runtime: 'containerd',
          version: '2.1.9',
          recordedAt: 'now',
          messages: { 'IDEM-14': ['the host still holds cgroup: cri-conform/0123 exists in 10 hierarchies'] },
        },
      ],
    };
    const shim = entry('IDEM-14', '^the host still holds process: .*containerd-shim');
    expect(replayDeviations(shim, fresh, { fresh: true })).to.have.length(1);
    const race = shim.map((d) => ({ ...d, race: true }));
    expect(replayDeviations(race, fresh, { fresh: true })).to.deep.equal([]);
    expect(replayDeviations(race, fresh), 'the bundled sample still holds it to its message').to.have.length(
      1,
    );
  });

  it('in a fresh sample, fails an entry its check no longer matches, and passes over a check that did not fail', () => {
    const fresh = (messages: Record<string, string[]>): ReplaySample => ({
      about: 'unit test',
      runs: [{ runtime: 'containerd', version: '2.1.9', recordedAt: 'now', messages }],
    });
    const tear05 = entry('TEAR-05', '^plugin 20 got .*; missing StopPodSandbox');
    expect(replayDeviations(tear05, fresh({}), { fresh: true })).to.deep.equal([]);
    expect(
      replayDeviations(tear05, fresh({ 'TEAR-05': ['plugin 20 saw nothing'] }), { fresh: true }),
    ).to.deep.equal([
      'TEAR-05 (devs.yaml entry 1, >=2.1.0): dead on containerd 2.1.9: /^plugin 20 got .*; missing StopPodSandbox/ matches none of the 1 TEAR-05 messages recorded there (the first: plugin 20 saw nothing)',
    ]);
  });

  it('fails a dead entry: its check writes another message now', () => {
    const problems = replayDeviations(entry('TEAR-08', 'after the client deadline expired'), SAMPLE);
    expect(problems).to.deep.equal([
      'TEAR-08 (devs.yaml entry 1, >=2.1.0): dead on containerd 2.1.9: /after the client deadline expired/ matches none of the 1 TEAR-08 messages recorded there (the first: violated in trial 2 of 20: plugin 10 was disconnected after the same with the client cancelling at its deadline)',
    ]);
  });

  it('fails an entry that matches on one version it covers but not on another, naming that version', () => {
    // IDEM-05's message took another form on containerd 1.7 (the first reply came past its deadline): the
    // entry as it stood before it took that form too still matched 2.1 and so hid the change.
    const converge =
      'path "the runtime\'s deadline expiring first": the identical CreateContainer in d9731baa0b8e1 did not converge within 4500 ms; the runtime lists ca71b85590c9c CREATED with that name in the sandbox: first';
    const retries = 'retries: #1 UNKNOWN 3ms "failed to reserve container name "workload_cc-idem-05_0"';
    const twoVersions: ReplaySample = {
      about: 'unit test',
      runs: [
        {
          runtime: 'containerd',
          version: '1.7.24~ds1',
          recordedAt: '2026-11-26T06:41:51Z',
          messages: {
            'IDEM-05': [
              `${converge} OK 524ms (answered past its 500 ms deadline: a kubelet had given up with DEADLINE_EXCEEDED); ${retries}`,
            ],
          },
        },
        {
          runtime: 'containerd',
          version: '2.1.9+unknown',
          recordedAt: '2026-11-26T06:11:55Z',
          messages: { 'IDEM-05': [`${converge} DEADLINE_EXCEEDED 503ms; ${retries}`] },
        },
      ],
    };
    const before = entry(
      'IDEM-05',
      String.raw`did not converge within \d+ ms; the runtime lists [0-9a-f]+ CREATED with that name in the sandbox: first (DEADLINE_EXCEEDED|CANCELLED) \d+ms; retries: #1 \w+ \d+ms "failed to reserve container name`,
      '>=1.7.0',
    );
    const problems = replayDeviations(before, twoVersions);
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(
      /^IDEM-05 \(devs\.yaml entry 1, >=1\.7\.0\): dead on containerd 1\.7\.24~ds1: .* matches none of the 1 IDEM-05 messages recorded there \(the first: .*\)$/,
    );
    // The entry of this path (the client-cancel path has one of its own).
    const bundled = loadBundledDeviations(findPackageRoot()).filter(
      (d) =>
        d.runtime === 'containerd' && d.id === 'IDEM-05' && d.message.source.includes('deadline expiring'),
    );
    expect(bundled).to.have.length(1);
    expect(replayDeviations(bundled, twoVersions)).to.deep.equal([]);
  });

  it("fails an over-broad entry: its pattern fits another check's message", () => {
    const problems = replayDeviations(entry('TEAR-08', 'plugin 10|plugin 20'), SAMPLE);
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(
      /^TEAR-08 .*: over-broad: also matches TEAR-05's message on 2\.1\.9: plugin 20 got/,
    );
  });

  it('fails an entry no recorded failure of its check can replay', () => {
    expect(replayDeviations(entry('TEAR-05', 'plugin 20', '>=1.6.0 <1.7.0'), SAMPLE)).to.deep.equal([
      'TEAR-05 (devs.yaml entry 1, >=1.6.0 <1.7.0): no recorded failure of TEAR-05 on containerd in its versions to replay it against',
    ]);
    expect(replayDeviations(entry('HOOK-11', 'stopped sandbox', '>=2.1.0'), SAMPLE)).to.deep.equal([
      'HOOK-11 (devs.yaml entry 1, >=2.1.0): no recorded failure of HOOK-11 on containerd in its versions to replay it against',
    ]);
  });

  it('passes over a version whose recorded runs never saw the check fail: a race does not fail every run', () => {
    const quietOn22: ReplaySample = {
      about: 'unit test',
      runs: [...SAMPLE.runs, { runtime: 'containerd', version: '2.2.7', recordedAt: 'now', messages: {} }],
    };
    expect(replayDeviations(entry('TEAR-05', 'plugin 20 got', '>=2.1.0'), quietOn22)).to.deep.equal([]);
  });

  it('records a run by minor version: failing checks get their new messages, the others keep the old ones', () => {
    const next = recordRun(SAMPLE, { runtime: 'containerd', version: '2.1.10', at: 'now' }, [
      {
        id: 'TEAR-05',
        verdict: 'deviation',
        message: 'expected deviation: ...',
        detail: 'known deviation: plugin 20 got []; missing all',
        violations: [{ clause: 'later-plugin', message: 'plugin 20 got []; missing all', known: true }],
      },
      { id: 'TEAR-08', verdict: 'passed', message: 'not seen in 20 trials' },
      { id: 'HOOK-11', verdict: 'failed', message: 'CreateContainer into a stopped sandbox succeeded' },
    ]);
    expect(next.runs).to.have.length(1);
    expect(next.runs[0]?.version).to.equal('2.1.10');
    expect(next.runs[0]?.messages).to.deep.equal({
      'HOOK-11': ['CreateContainer into a stopped sandbox succeeded'],
      'TEAR-05': ['plugin 20 got []; missing all'],
      'TEAR-08': SAMPLE.runs[0]?.messages['TEAR-08'],
    });
  });
});
