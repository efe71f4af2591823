import { expect } from 'chai';
import { describeLeftovers } from './runtime-leftovers.js';

describe('what the runtime still keeps, as the run says it', () => {
  const leftovers = [{ id: 'a'.repeat(64), runId: 'r' }];
  const socket = 'unix:///run/cri-conform/isolated/x/containerd.sock';

  it('tells how to remove records the CRI no longer lists', () => {
    expect(describeLeftovers(socket, leftovers)).to.contain('Remove them with: cri-conform cleanup --native');
  });

  it('gives no command for a private instance, which the run removes with them', () => {
    const said = describeLeftovers(socket, leftovers, { goes: true });
    expect(said).to.not.contain('cleanup --native');
    expect(said).to.not.contain('ctr -a');
    expect(said).to.match(/They go with the private instance, which the run removes now\.$/);
  });
});
