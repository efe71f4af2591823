import { expect } from 'chai';
import { leftoversHint, stopNotice } from './signals.js';

describe('what a run ended by a second signal says', () => {
  it('names cleanup with the endpoint the run was given', () => {
    expect(leftoversHint(['node', 'cri-conform', 'run', '-r', 'unix:///run/x.sock'])).to.equal(
      'run `cri-conform cleanup -r unix:///run/x.sock` to remove what it left',
    );
    expect(leftoversHint(['node', 'cri-conform', 'run'])).to.equal(
      'run `cri-conform cleanup` to remove what it left',
    );
  });

  it('names cleanup --isolated after an --isolated run, whose supervisor removes the instance', () => {
    expect(
      leftoversHint(['node', 'cri-conform', 'run', '--isolated', '--runtime-endpoint=/run/c.sock']),
    ).to.equal(
      "its private instance's supervisor removes the instance; `cri-conform cleanup --isolated -r /run/c.sock` removes whatever is left of it",
    );
  });
});

describe('what the first signal says, by command', () => {
  it('tells cleanup and doctor users when they stop, and keeps the run text for run', () => {
    const argv = (command: string) => ['node', 'cri-conform', command, '-r', 'unix:///run/x.sock'];
    expect(stopNotice('SIGINT', argv('cleanup'))).to.equal(
      'SIGINT: cleanup stops after the removal under way (no object is left half removed) and names what is left; press again to exit at once',
    );
    expect(stopNotice('SIGTERM', argv('doctor'))).to.equal(
      'SIGTERM: doctor stops once its probes have removed their pods, with no verdict (exit 2); press again to exit at once',
    );
    expect(stopNotice('SIGINT', argv('run'))).to.equal(
      'SIGINT: stopping cleanly (releasing hooks, cleaning up); press again to exit at once',
    );
  });
});
