import { expect } from 'chai';
import { type FakeRuntime, startFakeRuntime } from '../check/fake-runtime.test.helper.js';
import { RUN_LABEL } from '../core/labels.js';
import { ProofPodWatch } from './proof-disturbance.js';

describe("doctor's proof pod beside another client (fake CRI)", () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());

  const proofPod = (runId: string) =>
    fake.publish({
      metadata: { name: `cc-doctor-injectors-${runId}`, namespace: 'cri-conform', attempt: 0 },
      labels: { [RUN_LABEL]: runId },
      state: 'SANDBOX_READY',
    });

  it('calls a proof pod stopped by someone else a disturbance, not a broken injector', async () => {
    const watch = new ProofPodWatch();
    const id = proofPod('r1');
    const pod = fake.pods.get(id);
    if (pod) pod.state = 'SANDBOX_NOTREADY';
    expect(await watch.disturbance(fake.client, 'r1', new Error('x'))).to.match(
      /^disturbed: doctor's proof pod cc-doctor-injectors-r1 was stopped at .* by another client \(a kubelet\?\)/,
    );
  });

  it('does not blame another client for a pod doctor stopped itself', async () => {
    const watch = new ProofPodWatch();
    const id = proofPod('r2');
    await watch.observe(fake.client).call('StopPodSandbox', { podSandboxId: id });
    expect(await watch.disturbance(fake.client, 'r2', new Error('x'), 0)).to.equal(undefined);
  });
});
