import { expect } from 'chai';
import { leftoversHint } from './signals.js';

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
