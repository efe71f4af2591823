import { expect } from 'chai';
import { createConsoleReporter } from './console.js';
import { renderJUnit } from './junit.js';
import { result, sampleOutcome } from './sample-outcome.test.helper.js';

const KNOWN = {
  reason: 'the relay stops at the first error',
  links: ['https://github.com/containerd/nri/pull/286'],
};

function consoleOf(outcome: ReturnType<typeof sampleOutcome>): string {
  let out = '';
  const reporter = createConsoleReporter({ write: (s) => (out += s), isTTY: false }, { color: false });
  reporter.onStart(outcome.results.length, outcome.properties);
  for (const r of outcome.results) reporter.onCheckEnd(r);
  reporter.onEnd(outcome);
  return out;
}

describe('known runtime issues and stale deviations in the reports', () => {
  it('print the known issue link under the failure and under its summary line; it stays a failure', () => {
    const outcome = sampleOutcome();
    outcome.results = [
      result({ id: 'TEAR-05', verdict: 'failed', message: 'plugin 20 got []', knownIssue: KNOWN }),
    ];
    const out = consoleOf(outcome);
    expect(out).to.match(/FAIL +TEAR-05/);
    expect(out).to.include('    known runtime issue: https://github.com/containerd/nri/pull/286\n');
    expect(out).to.match(
      /✘ TEAR-05 .*: plugin 20 got \[\]\n {6}known runtime issue: https:\/\/github\.com\/containerd\/nri\/pull\/286\n/,
    );
  });

  it('say of a bug not reported upstream that it is not, and name its drafted report and the related issue', () => {
    const outcome = sampleOutcome();
    const draft = {
      reason: 'the nested read lock deadlocks against a registering plugin',
      links: ['https://github.com/containerd/containerd/issues/14083'],
      draft: 'docs/upstream/containerd-TEAR-16.md',
    };
    outcome.results = [
      result({ id: 'TEAR-16', verdict: 'failed', message: 'did not complete', knownIssue: draft }),
    ];
    expect(consoleOf(outcome)).to.include(
      '    known runtime issue: not reported upstream, bug report draft docs/upstream/containerd-TEAR-16.md (related: https://github.com/containerd/containerd/issues/14083)\n',
    );
    expect(renderJUnit(outcome)).to.include(
      'value="the nested read lock deadlocks against a registering plugin not reported upstream, bug report draft docs/upstream/containerd-TEAR-16.md',
    );
  });

  it('print nothing about known issues for failures without one', () => {
    const outcome = sampleOutcome();
    outcome.results = [result({ id: 'TEAR-05', verdict: 'failed', message: 'plugin 20 got []' })];
    expect(consoleOf(outcome)).to.not.include('known runtime issue');
  });

  it('put stale deviations into a JUnit property, and none when there are none', () => {
    const outcome = sampleOutcome();
    expect(renderJUnit(outcome)).to.not.include('staleDeviations');
    outcome.staleDeviations = [
      'TEAR-05 (containerd >=1.7.0 <1.8.0): the check passed; d.yaml entry 1, https://x/1',
    ];
    expect(renderJUnit(outcome)).to.include(
      '<property name="staleDeviations" value="TEAR-05 (containerd >=1.7.0 &lt;1.8.0): the check passed; d.yaml entry 1, https://x/1"/>',
    );
  });
});
