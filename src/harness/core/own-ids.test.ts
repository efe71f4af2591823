import { expect } from 'chai';
import { OwnIds } from './own-ids.js';

describe("the run's own ids", () => {
  const holder = 'a98556a5e7960cf6a66894a71f7bb4e6cfe534c9a4a57c8e527d78371a3f9c4f';

  it("takes the holder a reservation error names, from containerd's text as the CRI relays it", () => {
    const ids = new OwnIds();
    ids.addFromError(
      `failed to reserve sandbox name "cc-idem-14t31-x_cri-conform_7302_0": name "cc-idem-14t31-x_cri-conform_7302_0" is reserved for "${holder}"`,
    );
    ids.addFromError(`name \\"cc-x\\" is reserved for \\"${holder.replace('a9', 'b9')}\\"`);
    expect(ids.all()).to.deep.equal([holder, holder.replace('a9', 'b9')]);
  });

  it('takes only full ids, and nothing from other errors', () => {
    const ids = new OwnIds();
    ids.add(['4a2f', holder.toUpperCase(), holder]);
    ids.addFromError(`an error occurred when try to find container "${'c'.repeat(64)}": not found`);
    ids.addFromError(undefined);
    expect(ids.all()).to.deep.equal([holder]);
  });

  it('takes what a reply of the run says it made: a pod, a container, nothing of other calls', () => {
    const ids = new OwnIds();
    const container = holder.replace('a9', 'c9');
    ids.addMade('RunPodSandbox', { podSandboxId: holder });
    ids.addMade('CreateContainer', { containerId: container });
    ids.addMade('PodSandboxStatus', { status: { id: holder.replace('a9', 'd9') } });
    ids.addMade('RunPodSandbox', undefined);
    expect(ids.all()).to.deep.equal([holder, container]);
  });
});
