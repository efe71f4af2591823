import { expect } from 'chai';
import { findPackageRoot } from '../nri/package-root.js';
import { loadBundledDeviations, parseDeviations } from './deviation-file.js';
import {
  type ReplaySample,
  readSample,
  recordRun,
  replayDeviations,
  samplePath,
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
  it('finds every bundled entry live and narrow against the messages the checks wrote on containerd', () => {
    const root = findPackageRoot();
    const sample = readSample(samplePath(root, 'containerd'));
    expect(sample.runs.map((r) => r.version).length, 'recorded runs').to.be.at.least(2);
    const entries = loadBundledDeviations(root).filter((d) => d.runtime === 'containerd');
    expect(replayDeviations(entries, sample)).to.deep.equal([]);
  });

  it('fails a dead entry: its check writes another message now', () => {
    const problems = replayDeviations(entry('TEAR-08', 'after the client deadline expired'), SAMPLE);
    expect(problems).to.deep.equal([
      'TEAR-08 (devs.yaml entry 1, >=2.1.0): dead: /after the client deadline expired/ matches none of the 1 recorded TEAR-08 messages on containerd 2.1.9',
    ]);
  });

  it("fails an over-broad entry: its pattern fits another check's message", () => {
    const problems = replayDeviations(entry('TEAR-08', 'plugin 10|plugin 20'), SAMPLE);
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(
      /^TEAR-08 .*: over-broad: also matches TEAR-05's message on 2\.1\.9: plugin 20 got/,
    );
  });

  it('fails an entry no recorded run can replay', () => {
    expect(replayDeviations(entry('TEAR-05', 'plugin 20', '>=1.6.0 <1.7.0'), SAMPLE)).to.deep.equal([
      'TEAR-05 (devs.yaml entry 1, >=1.6.0 <1.7.0): no recorded run of containerd in its versions to replay it against',
    ]);
  });

  it('records a run by minor version: failing checks get their new messages, the others keep the old ones', () => {
    const next = recordRun(SAMPLE, { runtime: 'containerd', version: '2.1.10', at: 'now' }, [
      {
        id: 'TEAR-05',
        verdict: 'deviation',
        message: 'expected deviation: ...',
        detail: 'plugin 20 got []; missing all',
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
