import { expect } from 'chai';
import type { TimelineEntry } from '../harness/check/result.js';
import { createConsoleReporter } from './console.js';
import { HOOK_LANE, result, sampleOutcome, TIMELINE } from './sample-outcome.test.helper.js';

const ESC = '\u001b';

function capture(isTTY: boolean, color: boolean) {
  let out = '';
  const reporter = createConsoleReporter({ write: (s) => (out += s), isTTY }, { color });
  return { reporter, output: () => out };
}

/** Plays a whole run through a reporter. */
function play(isTTY: boolean, color: boolean): string {
  const { reporter, output } = capture(isTTY, color);
  const outcome = sampleOutcome();
  reporter.onStart(outcome.results.length, outcome.properties);
  for (const r of outcome.results) {
    reporter.onCheckStart(r.id, `${r.id} ${r.title} [${r.level}]`);
    reporter.onCheckEnd(r);
  }
  reporter.onEnd(outcome);
  return output();
}

describe('console reporter', () => {
  it('writes no escape codes with color off, on a pipe', () => {
    const out = play(false, false);
    expect(out).not.to.contain(ESC);
    expect(out).not.to.contain('\r');
  });

  it('writes no escape codes with color off, even on a terminal', () => {
    expect(play(true, false)).not.to.contain(ESC);
  });

  it('colors verdicts when color is on', () => {
    const out = play(false, true);
    expect(out).to.contain(`${ESC}[32m✔ PASS`);
    expect(out).to.contain(`${ESC}[31m`);
  });

  it('prints one line per check with verdict, ID, title, level and duration', () => {
    const lines = play(false, false).split('\n');
    expect(lines[0]).to.equal(
      'cri-conform 0.1.0 run r-1: 6 checks against containerd 1.7.24 (CRI v1, NRI 0.6.1) at unix:///run/containerd/containerd.sock',
    );
    expect(lines).to.include(
      '✔ PASS      IDEM-01 A retried RunPodSandbox returns the same sandbox [MUST] (1.2 s)',
    );
    expect(lines).to.include(
      '- SKIP      NAME-02 A retried RunPodSandbox returns the same sandbox [MUST] (1.2 s)',
    );
    expect(lines).to.include('    needs NRI: pass --nri-socket');
    expect(lines).to.include('    reservation.code=UNKNOWN');
    expect(lines).to.include(
      '    0 of 5 trials violated the contract, 4 at once; floor 2.4 s side by side, 6.0 s serial',
    );
  });

  it('prints a failure with its message and timeline, indented under the check', () => {
    const out = play(false, false);
    expect(out).to.contain(
      [
        '✘ FAIL      IDEM-02 A retried RunPodSandbox returns the same sandbox [MUST] (1.2 s)',
        '    expected pod-2 to equal pod-1',
        '    timeline (last 3 of 3):',
        '      #1 +3ms cri RunPodSandbox name=idem-01#0 deadline=2000ms latency=2001ms DEADLINE_EXCEEDED: context deadline exceeded',
        '      #2 +15ms nri 10-cri-conform RunPodSandbox pod=idem-01(0123456789ab) [fault: hang]',
        '      #3 +2100ms note retrying like kubelet',
      ].join('\n'),
    );
  });

  it('shows only the last 20 timeline lines of a long failure', () => {
    const { reporter, output } = capture(false, false);
    const timeline: TimelineEntry[] = Array.from({ length: 30 }, (_, i) => ({
      kind: 'note',
      seq: i + 1,
      atMs: i,
      text: `step ${i + 1}`,
    }));
    reporter.onCheckEnd(result({ id: 'LONG-01', verdict: 'error', message: 'boom\nsecond line', timeline }));
    const out = output();
    expect(out).to.contain(
      '    boom\n    second line\n    timeline (last 20 of 30):\n      ... 10 earlier entries left out\n      #11 +10ms note step 11',
    );
    expect(out).not.to.contain('step 10\n');
    expect(out).to.contain('#30 +29ms note step 30');
  });

  it('ends with a table per suite and verdict, the reason of every failure and the wall time', () => {
    const out = play(false, false);
    expect(out).to.contain(
      [
        'Summary',
        'suite        passed  failed  error  skipped  deviation  observed',
        'idempotency       1       1      0        0          0         0',
        'names             0       0      1        1          0         0',
        'hooks             0       0      0        0          1         1',
        'total             1       1      1        1          1         1',
        '',
        'Failures and errors',
        '  ✘ IDEM-02 A retried RunPodSandbox returns the same sandbox: expected pod-2 to equal pod-1',
        '  ! NAME-01 A retried RunPodSandbox returns the same sandbox: ttrpc: bad frame',
        '',
        '6 checks in 1m 05s (wall time)',
      ].join('\n'),
    );
  });

  it('counts one check as "1 check", at the start and in the summary', () => {
    const { reporter, output } = capture(false, false);
    const outcome = sampleOutcome();
    const one = { ...outcome, results: outcome.results.slice(0, 1) };
    reporter.onStart(1, one.properties);
    reporter.onEnd(one);
    expect(output())
      .to.match(/run r-1: 1 check against /)
      .and.to.match(/^1 check in /m);
  });

  it("ends with what the machine's CPUs did when the run measured them", () => {
    const { reporter, output } = capture(false, false);
    const cpu = { cores: 2, busySeconds: 963.2, busyPct: 94, floorMs: 481_600, toolSeconds: 32.7 };
    reporter.onEnd({ ...sampleOutcome(), cpu });
    expect(output()).to.match(
      /^6 checks in 1m 05s \(wall time\)\nCPUs: 2 cores 94% busy \(963\.2 CPU-s, cri-conform 32\.7 s\): this work takes at least 8m 02s here \(CPU floor\)\n/m,
    );
  });

  it('then says how long the checks that hold hooks in turn took the hook lane', () => {
    const { reporter, output } = capture(false, false);
    reporter.onEnd({ ...sampleOutcome(), hookLane: HOOK_LANE });
    expect(output()).to.match(
      /^6 checks in 1m 05s \(wall time\)\nhook lane: taken 19\.2 s of the 19\.3 s from its first turn to its last \(TEAR-14 9\.9 s in 40 turns, TEAR-08 9\.3 s in 60\)\n/m,
    );
  });

  it('names the interruption in the summary', () => {
    const { reporter, output } = capture(false, false);
    reporter.onEnd({ ...sampleOutcome(), interrupted: 'SIGINT received' });
    expect(output()).to.contain('Interrupted: SIGINT received');
  });

  it('shows running checks on a terminal in a live line that later output overwrites', () => {
    const { reporter, output } = capture(true, false);
    reporter.onStart(2, sampleOutcome().properties);
    reporter.onCheckStart('IDEM-01', 'IDEM-01 title [MUST]');
    expect(output()).to.match(/\[1\/2\] IDEM-01 \d+\.\d s$/);
    const before = output().length;
    reporter.onCheckEnd(result({ id: 'IDEM-01', verdict: 'passed', timeline: TIMELINE }));
    const after = output().slice(before);
    expect(after).to.match(/^\r +\r✔ PASS/);
    reporter.onEnd({ ...sampleOutcome(), results: [] });
  });

  it('prints a plain line when each check starts on a pipe', () => {
    const { reporter, output } = capture(false, false);
    reporter.onStart(2, sampleOutcome().properties);
    reporter.onCheckStart('IDEM-01', 'IDEM-01 title [MUST]');
    expect(output().split('\n')).to.include('[1/2] start IDEM-01 title [MUST]');
  });

  it('prints results in catalogue order when a later check finishes first', () => {
    const { reporter, output } = capture(false, false);
    reporter.onStart(2, sampleOutcome().properties);
    reporter.onCheckStart('TEAR-10', 'TEAR-10 t [MUST]');
    reporter.onCheckStart('TEAR-11', 'TEAR-11 t [MUST]');
    reporter.onCheckEnd(result({ id: 'TEAR-11', verdict: 'passed' }));
    expect(output()).not.to.contain('PASS');
    reporter.onCheckEnd(result({ id: 'TEAR-10', verdict: 'passed' }));
    expect(output().indexOf('TEAR-10 A retried')).to.be.lessThan(output().indexOf('TEAR-11 A retried'));
  });

  it('collapses identical retry results, caps every line and names a known issue', () => {
    const reserve = `failed to reserve sandbox name "${'x'.repeat(120)}"`;
    const attempts = Array.from({ length: 8 }, (_, i) => `#${i + 1} UNKNOWN ${10 + i}ms "${reserve}"`);
    const { reporter, output } = capture(false, false);
    const outcome = sampleOutcome();
    outcome.results = [
      result({
        id: 'IDEM-01',
        verdict: 'failed',
        message: `retries: ${attempts.join('; ')}`,
        observations: { long: 'y'.repeat(900) },
        knownIssue: { reason: 'known', links: ['https://github.com/containerd/containerd/issues/9'] },
      }),
    ];
    reporter.onStart(1, outcome.properties);
    reporter.onCheckStart('IDEM-01', 'IDEM-01 t [MUST]');
    reporter.onCheckEnd(outcome.results[0]!);
    reporter.onEnd(outcome);
    expect(output()).to.contain('#1–#8 UNKNOWN ×8 (10–17ms) "failed to reserve sandbox name');
    expect(output()).to.contain('known runtime issue: https://github.com/containerd/containerd/issues/9');
    for (const line of output().split('\n')) expect(line.length).to.be.at.most(300);
  });

  it('names each known issue a failure rests on, and how many violations one explains beside a new one', () => {
    const issue = (n: number) => ({ reason: `bug ${n}`, links: [`https://github.com/o/r/issues/${n}`] });
    const violation = (n?: number) => ({
      clause: 'c',
      message: `m${n ?? ''}`,
      known: n !== undefined,
      ...(n === undefined ? {} : { knownIssue: issue(n) }),
    });
    const { reporter, output } = capture(false, false);
    const twoBugs = result({ id: 'IDEM-14', verdict: 'failed', message: 'm', knownIssue: issue(1) });
    // Two entries of one bug (another reason, the same link) are one line.
    const otherWay = { ...violation(2), knownIssue: { ...issue(2), reason: 'bug 2, another way' } };
    twoBugs.violations = [violation(1), violation(2), violation(1), otherWay];
    reporter.onCheckStart('IDEM-14', 'IDEM-14 t [MUST]');
    reporter.onCheckEnd(twoBugs);
    const beside = result({ id: 'IDEM-16', verdict: 'failed', message: 'm' });
    beside.violations = [violation(3), violation()];
    reporter.onCheckStart('IDEM-16', 'IDEM-16 t [MUST]');
    reporter.onCheckEnd(beside);
    const out = output();
    expect(out).to.contain(
      '    known runtime issue: https://github.com/o/r/issues/1\n    known runtime issue: https://github.com/o/r/issues/2\n',
    );
    expect(out).to.contain('    known runtime issue of 1 of 2 violations: https://github.com/o/r/issues/3\n');
    expect(out.match(/issues\/2\n/g), 'one line for both entries of bug 2').to.have.length(1);
  });
});
