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

  /** A created container in a fresh proof pod, as the proof's CreateContainer leaves it. */
  const proofContainer = (runId: string) => {
    const podSandboxId = proofPod(runId);
    const id = `ctr-${runId}`;
    const metadata = { name: 'proof', attempt: 0 };
    fake.containers.set(id, {
      id,
      podSandboxId,
      metadata,
      labels: { [RUN_LABEL]: runId },
      state: 'CONTAINER_CREATED',
    });
    return id;
  };

  it('calls a created proof container that someone else stopped a disturbance, though its pod is still READY', async () => {
    const watch = new ProofPodWatch();
    const id = proofContainer('r3');
    await fake.client.call('StopContainer', { containerId: id, timeout: '1' });
    expect(await watch.disturbance(fake.client, 'r3', new Error('cannot start'), 0)).to.match(
      /^disturbed: doctor's proof container proof was stopped at .* by another client \(a kubelet\?\), seen by ListContainers$/,
    );
  });

  it('does not blame another client for a container that doctor started and that ended, or whose start failed', async () => {
    const watch = new ProofPodWatch();
    const client = watch.observe(fake.client);
    const ran = proofContainer('r4');
    await client.call('StartContainer', { containerId: ran });
    const entry = fake.containers.get(ran);
    if (entry) entry.state = 'CONTAINER_EXITED';
    expect(await watch.disturbance(fake.client, 'r4', new Error('x'), 0)).to.equal(undefined);
    const failed = proofContainer('r5');
    const failedEntry = fake.containers.get(failed);
    if (failedEntry) failedEntry.state = 'CONTAINER_EXITED';
    fake.override('ContainerStatus', () => ({
      status: {
        id: failed,
        metadata: { name: 'proof', attempt: 0 },
        state: 'CONTAINER_EXITED',
        reason: 'StartError',
      },
    }));
    try {
      expect(await watch.disturbance(fake.client, 'r5', new Error('x'), 0)).to.equal(undefined);
    } finally {
      fake.override('ContainerStatus', undefined);
    }
  });

  it('does not blame another client for a pod doctor stopped itself', async () => {
    const watch = new ProofPodWatch();
    const id = proofPod('r2');
    await watch.observe(fake.client).call('StopPodSandbox', { podSandboxId: id });
    expect(await watch.disturbance(fake.client, 'r2', new Error('x'), 0)).to.equal(undefined);
  });
});
