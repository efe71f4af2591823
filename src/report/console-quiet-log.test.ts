/**
 * A log (no terminal) that has had no line for a while is told what still runs, so that a check whose
 * trials take minutes is not mistaken for a hang; a terminal has its live line instead.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createConsoleReporter } from './console.js';
import { result, sampleOutcome } from './sample-outcome.test.helper.js';

const QUIET_MS = 40;

function runningRaceCheck(isTTY: boolean) {
  let out = '';
  const reporter = createConsoleReporter(
    { write: (s) => (out += s), isTTY },
    { color: false, logQuietMs: QUIET_MS },
  );
  const outcome = sampleOutcome();
  reporter.onStart(53, outcome.properties);
  reporter.onCheckStart('IDEM-15', 'IDEM-15 Concurrent StopPodSandbox calls [SHOULD]');
  reporter.onTrialEnd('IDEM-15', 3, 40);
  return { reporter, outcome, output: () => out };
}

describe('console reporter: a quiet log', () => {
  it('says what still runs, with the trials over, once the log has had no line for a while', async () => {
    const { reporter, outcome, output } = runningRaceCheck(false);
    await sleep(QUIET_MS * 3);
    reporter.onEnd(outcome);
    expect(output()).to.match(/^still running: \[1\/53\] IDEM-15 0\.\d s 3\/40 trials$/m);
  });

  it('says nothing while no check runs', async () => {
    const { reporter, outcome, output } = runningRaceCheck(false);
    reporter.onCheckEnd(result({ id: 'IDEM-15', verdict: 'passed' }));
    await sleep(QUIET_MS * 3);
    expect(output()).not.to.contain('still running');
    reporter.onEnd(outcome);
  });

  it('leaves a terminal to its live line', async () => {
    const { reporter, outcome, output } = runningRaceCheck(true);
    await sleep(QUIET_MS * 3);
    reporter.onEnd(outcome);
    expect(output()).not.to.contain('still running');
  });
});
