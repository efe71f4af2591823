import { expect } from 'chai';
import type { CheckContext } from '../check/context.js';
import { type FakeRuntime, fakeEnv, startFakeRuntime, testCheck } from '../check/fake-runtime.test.helper.js';
import { SharedOutcomes } from '../check/shared-outcomes.js';
import { RUN_LABEL } from '../core/labels.js';
import { executeCheck } from '../run/execute-check.js';
import { DisturbanceMonitor } from './disturbance-monitor.js';

describe('a check beside another client (fake CRI)', () => {
  let fake: FakeRuntime;
  before(async () => {
    fake = await startFakeRuntime();
  });
  after(() => fake.close());

  const besideEnv = () => {
    const monitor = new DisturbanceMonitor(async () => ({
      pods: [...fake.pods.values()].filter((p) => p.labels[RUN_LABEL] === 'unit-run'),
      containerIds: new Set(fake.containers.keys()),
      exitedContainerIds: new Set(
        [...fake.containers.values()].filter((c) => c.state === 'CONTAINER_EXITED').map((c) => c.id),
      ),
    }));
    return { env: { ...fakeEnv(fake.client), disturbance: monitor }, monitor };
  };

  it('ends in ERROR "disturbed", not FAIL, when another client stops its pod', async () => {
    const { env, monitor } = besideEnv();
    const r = await executeCheck(
      env,
      testCheck(async (t: CheckContext) => {
        const podId = await t.cri.runPod(t.make.pod('victim'));
        // Another client stops the pod behind the check's back.
        const pod = fake.pods.get(podId);
        if (pod) pod.state = 'SANDBOX_NOTREADY';
        await t.pause(600, 'long enough for two listings');
        t.expect((await t.cri.podStateOrGone(podId)) === 'SANDBOX_READY', 'the pod stays READY', 'unit');
      }),
      10_000,
    );
    await monitor.stop();
    expect(r.verdict).to.equal('error');
    expect(r.message).to.match(
      /^disturbed: pod cc-unit-01-victim-[0-9a-f]{8} was stopped at .* \(a kubelet\?\), seen by ListPodSandbox/,
    );
    const what = r.observations.disturbed ?? '';
    expect(r.message, 'what the check found stays in the message').to.equal(
      `${what}; it had found: the pod stays READY`,
    );
    expect(r.timeline.filter((e) => e.kind === 'note' && e.text === what)).to.have.length(1);
  });

  it('takes a last look before the check’s own cleanup, so a pod stopped just before it is not missed', async () => {
    const { env, monitor } = besideEnv();
    const r = await executeCheck(
      env,
      testCheck(async (t: CheckContext) => {
        const podId = await t.cri.runPod(t.make.pod('trial'));
        const pod = fake.pods.get(podId);
        if (pod) pod.state = 'SANDBOX_NOTREADY';
        await t.cleanupNow();
        t.expect(true, 'the trial was judged', 'unit');
      }),
      10_000,
    );
    await monitor.stop();
    expect(r.verdict).to.equal('error');
    expect(r.message).to.match(/^disturbed: pod cc-unit-01-trial-/);
  });

  it('looks once more right before the check’s own stop, so a container stopped just before it is not missed', async () => {
    const { env, monitor } = besideEnv();
    const r = await executeCheck(
      env,
      testCheck(async (t: CheckContext) => {
        const { podId, containerId } = await t.cri.runPodWithContainer('stopped-first');
        // Another client's stop lands in the gap between two periodic listings; the check stops at once.
        const container = fake.containers.get(containerId);
        if (container) container.state = 'CONTAINER_EXITED';
        await t.cri.stopPod(podId);
        t.expect(true, 'the check judged its own stop', 'unit');
      }),
      10_000,
    );
    await monitor.stop();
    expect(r.verdict).to.equal('error');
    expect(r.message).to.match(
      /^disturbed: container workload of pod cc-unit-01-stopped-first-[0-9a-f]{8} was stopped .* seen by ListContainers$/,
    );
  });

  it('sends only Stop and Remove calls after a look, and each one after it', async () => {
    const order: string[] = [];
    const monitor = new DisturbanceMonitor(async () => {
      order.push('look');
      const pods = [{ id: 'p-look', state: 'SANDBOX_READY' }];
      return { pods, containerIds: new Set<string>(), exitedContainerIds: new Set<string>() };
    });
    for (const method of ['RunPodSandbox', 'StopPodSandbox', 'RemovePodSandbox'])
      fake.override(method, () => {
        order.push(method);
        fake.override(method, undefined);
        return method === 'RunPodSandbox' ? { podSandboxId: 'p-look' } : {};
      });
    const r = await executeCheck(
      { ...fakeEnv(fake.client), disturbance: monitor },
      testCheck(async (t: CheckContext) => {
        const podId = await t.cri.runPod(t.make.pod('order'));
        await t.cri.stopPod(podId);
        await t.cri.removePod(podId);
        t.expect(true, 'the calls went out', 'unit');
      }),
      10_000,
    );
    await monitor.stop();
    expect(r.verdict, r.message).to.equal('passed');
    // The periodic listing may add looks of its own; the one before each ending call is the point.
    const calls = order.filter((o) => o !== 'look');
    expect(calls).to.deep.equal(['RunPodSandbox', 'StopPodSandbox', 'RemovePodSandbox']);
    expect(order[0], 'no look before a call that ends nothing').to.equal('RunPodSandbox');
    for (const method of ['StopPodSandbox', 'RemovePodSandbox'])
      expect(order[order.indexOf(method) - 1], `before ${method}`).to.equal('look');
  });

  it('ends a check that judges a scenario another check ran in ERROR "disturbed" when that was disturbed', async () => {
    const { env, monitor } = besideEnv();
    const shared = { ...env, shared: new SharedOutcomes() };
    const scenario = (t: CheckContext) =>
      t.shared('unit scenario', async () => {
        const podId = await t.cri.runPod(t.make.pod('scenario'));
        const pod = fake.pods.get(podId);
        if (pod) pod.state = 'SANDBOX_NOTREADY';
        await t.pause(600, 'long enough for two listings');
        return podId;
      });
    const judge = (t: CheckContext, podId: string) => t.expect(podId !== '', 'the scenario ran', 'unit');
    const ran = await executeCheck(
      shared,
      testCheck(async (t) => judge(t, await scenario(t))),
      10_000,
    );
    const read = await executeCheck(
      shared,
      testCheck(async (t) => judge(t, await scenario(t)), { id: 'UNIT-02' }),
      10_000,
    );
    await monitor.stop();
    expect([ran.verdict, read.verdict]).to.deep.equal(['error', 'error']);
    expect(read.message).to.match(
      /^disturbed: pod cc-unit-01-scenario-[0-9a-f]{8} \(of the scenario UNIT-01 ran\) was stopped at .* seen by ListPodSandbox$/,
    );
  });

  it('ends in ERROR when the container the check stops had exited before its own StopContainer went out', async () => {
    const { env, monitor } = besideEnv();
    // The kubelet's stop ended the container a moment before the check's own went out; the periodic
    // listing did not catch it, and the exited container's status says when.
    const exitedAtNs = () => `${BigInt(Date.now() - 374) * 1_000_000n}`;
    fake.override('ContainerStatus', (req) => {
      const c = fake.containers.get((req as { containerId: string }).containerId);
      return { status: { ...c, state: 'CONTAINER_EXITED', exitCode: 137, finishedAt: exitedAtNs() } };
    });
    const r = await executeCheck(
      env,
      testCheck(async (t: CheckContext) => {
        const { containerId } = await t.cri.runPodWithContainer('stop-raced');
        const reply = await t.cri.tryCall(
          'StopContainer',
          { containerId, timeout: '1' },
          { ignoresTerm: true },
        );
        t.expect(reply.ok, 'StopContainer answered OK', 'unit');
      }),
      10_000,
    );
    fake.override('ContainerStatus', undefined);
    await monitor.stop();
    expect(r.verdict, r.message).to.equal('error');
    expect(r.message).to.match(
      /^disturbed: container workload of pod cc-unit-01-stop-raced-[0-9a-f]{8} was stopped at .* seen by its status: it had exited at \d\d:\d\d:\d\d\.\d{3}, before its own StopContainer went out at /,
    );
  });

  /** A check that stops its pod with a container whose status says it exited `exitedMs` from now. */
  const stopPodWhoseContainerExited = async (exitedMs: number) => {
    const { env, monitor } = besideEnv();
    let exitedAt = 0;
    // The listings show the container running: only its status, read after the pod's stop, tells when.
    fake.override('ContainerStatus', (req) => {
      const c = fake.containers.get((req as { containerId: string }).containerId);
      const finishedAt = `${BigInt(exitedAt) * 1_000_000n}`;
      return { status: { ...c, state: 'CONTAINER_EXITED', exitCode: 137, finishedAt } };
    });
    const r = await executeCheck(
      env,
      testCheck(async (t: CheckContext) => {
        const { podId } = await t.cri.runPodWithContainer('pod-stop-raced');
        exitedAt = Date.now() + exitedMs;
        await t.cri.stopPod(podId);
        t.expect(true, 'the check judged its own stop', 'unit');
      }),
      10_000,
    );
    fake.override('ContainerStatus', undefined);
    await monitor.stop();
    return r;
  };

  it('ends in ERROR when a container of the pod had exited before the check’s own StopPodSandbox went out', async () => {
    // The kubelet's StopPodSandbox kills the containers first; the pod reads NOTREADY only after them.
    const r = await stopPodWhoseContainerExited(-40);
    expect(r.verdict, r.message).to.equal('error');
    expect(r.message).to.match(
      /^disturbed: container workload of pod cc-unit-01-pod-stop-raced-[0-9a-f]{8} was stopped at .* seen by its status: it had exited at \d\d:\d\d:\d\d\.\d{3}, before its pod's own StopPodSandbox went out at /,
    );
  });

  it('passes when the pod’s container exited only after the check’s own StopPodSandbox went out', async () => {
    const r = await stopPodWhoseContainerExited(60_000);
    expect(r.verdict, r.message).to.equal('passed');
  });

  it('passes when the check stops and removes its own pod', async () => {
    const { env, monitor } = besideEnv();
    const r = await executeCheck(
      env,
      testCheck(async (t: CheckContext) => {
        const podId = await t.cri.runPod(t.make.pod('own'));
        await t.cri.stopPod(podId);
        await t.pause(600, 'long enough for two listings');
        await t.cri.removePod(podId);
        t.expect((await t.cri.podStateOrGone(podId)) === 'GONE', 'the pod is gone', 'unit');
      }),
      10_000,
    );
    await monitor.stop();
    expect(r.verdict, r.message).to.equal('passed');
  });
});
