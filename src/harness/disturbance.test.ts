import { expect } from 'chai';
import type { CheckContext } from './context.js';
import { CheckObjects, type Disturbance, DisturbanceMonitor, describeDisturbance } from './disturbance.js';
import { executeCheck } from './execute-check.js';
import { type FakeRuntime, fakeEnv, startFakeRuntime, testCheck } from './fake-runtime.test.helper.js';
import { CHECK_LABEL, RUN_LABEL } from './labels.js';
import { SharedOutcomes } from './shared-outcomes.js';

const POD = { podSandboxId: 'p1' };
const nriEvent = (
  event: 'StopPodSandbox' | 'RemovePodSandbox' | 'StopContainer' | 'RemoveContainer',
  podId: string,
  containerId?: string,
) =>
  ({
    event,
    pod: { id: podId },
    ...(containerId ? { container: { id: containerId } } : {}),
  }) as Parameters<CheckObjects['nriEvent']>[0];

describe('disturbance: another client’s doing, told from the check’s own', () => {
  const objectsWith = (besideAnotherClient: boolean) => {
    const seen: Disturbance[] = [];
    const objects = new CheckObjects({ besideAnotherClient, onDisturbed: (d) => seen.push(d) });
    objects.replied('RunPodSandbox', { config: { metadata: { name: 'cc-unit-a' } } }, { podSandboxId: 'p1' });
    objects.replied(
      'CreateContainer',
      { ...POD, config: { metadata: { name: 'workload' } } },
      { containerId: 'c1' },
    );
    return { objects, seen };
  };

  it('takes an NRI Stop event for a pod the check made and never stopped as another client’s', () => {
    const { objects, seen } = objectsWith(false);
    objects.nriEvent(nriEvent('StopPodSandbox', 'p1'));
    expect(seen).to.have.length(1);
    expect(describeDisturbance(seen[0] as Disturbance)).to.match(
      /^disturbed: pod cc-unit-a was stopped at \d\d:\d\d:\d\d\.\d{3} by another client \(a kubelet\?\), seen by an NRI StopPodSandbox event$/,
    );
  });

  it('takes nothing the check asked for as a disturbance: its own stop, its cleanup, a pod it never made', () => {
    const { objects, seen } = objectsWith(true);
    objects.sending('StopPodSandbox', POD);
    objects.nriEvent(nriEvent('StopPodSandbox', 'p1'));
    objects.nriEvent(nriEvent('RemoveContainer', 'p1', 'c1'));
    objects.nriEvent(nriEvent('RemovePodSandbox', 'someone-elses'));
    objects.listed([], new Set(), performance.now() + 1);
    expect(seen).to.deep.equal([]);
    const other = objectsWith(true);
    other.objects.endingAll();
    other.objects.listed([], new Set(), performance.now() + 1);
    expect(other.seen).to.deep.equal([]);
  });

  it('counts a state change or NOT_FOUND only beside another client: without one it may be the runtime’s own doing', () => {
    const alone = objectsWith(false);
    alone.objects.listed([{ id: 'p1', state: 'SANDBOX_NOTREADY' }], new Set(['c1']), performance.now() + 1);
    alone.objects.failed('PodSandboxStatus', POD, 'NOT_FOUND');
    expect(alone.seen).to.deep.equal([]);
    const beside = objectsWith(true);
    beside.objects.failed('CreateContainer', POD, 'NOT_FOUND');
    expect(beside.seen, 'a CreateContainer NOT_FOUND may be about its image').to.deep.equal([]);
    beside.objects.failed('ContainerStatus', { containerId: 'c1' }, 'NOT_FOUND');
    expect(beside.seen.map((d) => [d.object, d.action])).to.deep.equal([
      ['container workload of pod cc-unit-a', 'stopped or removed'],
    ]);
  });

  it('takes a Stop or Remove of the check’s own that the runtime failed as perhaps met by another client’s, beside one', () => {
    const { objects, seen } = objectsWith(true);
    objects.sending('StopPodSandbox', POD);
    objects.failed('StopPodSandbox', POD, 'DEADLINE_EXCEEDED');
    expect(seen, 'a deadline is the check giving up').to.deep.equal([]);
    objects.failed('StopPodSandbox', POD, 'UNKNOWN');
    expect(describeDisturbance(seen[0] as Disturbance)).to.match(
      /^disturbed: pod cc-unit-a was perhaps being stopped at .* by another client \(a kubelet\?\), seen by its own StopPodSandbox failing with UNKNOWN$/,
    );
    const alone = objectsWith(false);
    alone.objects.sending('RemoveContainer', { containerId: 'c1' });
    alone.objects.failed('RemoveContainer', { containerId: 'c1' }, 'UNKNOWN');
    expect(alone.seen, 'without another client it is the runtime’s failure').to.deep.equal([]);
  });

  it('takes a container of the check that exited without a stop of its own as stopped, beside another client', () => {
    const { objects, seen } = objectsWith(true);
    const pods = [{ id: 'p1', state: 'SANDBOX_READY' }];
    objects.listed(pods, new Set(['c1']), performance.now() + 1, new Set(['c1']));
    expect(seen.map((d) => [d.object, d.action])).to.deep.equal([
      ['container workload of pod cc-unit-a', 'stopped'],
    ]);
    const own = objectsWith(true);
    own.objects.sending('StopContainer', { containerId: 'c1' });
    own.objects.listed(pods, new Set(['c1']), performance.now() + 1, new Set(['c1']));
    expect(own.seen, 'its own StopContainer').to.deep.equal([]);
  });

  describe('an NRI StopContainer event (containerd sends one for a container that exits by itself too)', () => {
    it('is another client’s stop beside another client, for a container the check and its pod still had', () => {
      const { objects, seen } = objectsWith(true);
      objects.nriEvent(nriEvent('StopContainer', 'p1', 'c1'));
      expect(seen.map((d) => [d.object, d.action, d.seenBy])).to.deep.equal([
        ['container workload of pod cc-unit-a', 'stopped', 'an NRI StopContainer event'],
      ]);
    });

    it('is no disturbance without another client: the container may have exited by itself', () => {
      const { objects, seen } = objectsWith(false);
      objects.nriEvent(nriEvent('StopContainer', 'p1', 'c1'));
      expect(seen).to.deep.equal([]);
    });

    it('is the check’s own when it stopped or removed the pod or the container', () => {
      for (const [method, request] of [
        ['StopPodSandbox', POD],
        ['RemovePodSandbox', POD],
        ['StopContainer', { containerId: 'c1' }],
        ['RemoveContainer', { containerId: 'c1' }],
      ] as const) {
        const { objects, seen } = objectsWith(true);
        objects.sending(method, request);
        objects.nriEvent(nriEvent('StopContainer', 'p1', 'c1'));
        expect(seen, `after its own ${method}`).to.deep.equal([]);
      }
    });

    it('is the check’s own when its StartContainer failed, even when the event came before the reply', () => {
      const { objects, seen } = objectsWith(true);
      objects.sending('StartContainer', { containerId: 'c1' });
      objects.nriEvent(nriEvent('StopContainer', 'p1', 'c1'));
      objects.failed('StartContainer', { containerId: 'c1' }, 'UNKNOWN');
      objects.listed(
        [{ id: 'p1', state: 'SANDBOX_READY' }],
        new Set(['c1']),
        performance.now() + 1,
        new Set(['c1']),
      );
      expect(seen).to.deep.equal([]);
    });

    it('counts once its StartContainer succeeded, when it came during the start', () => {
      const { objects, seen } = objectsWith(true);
      objects.sending('StartContainer', { containerId: 'c1' });
      objects.nriEvent(nriEvent('StopContainer', 'p1', 'c1'));
      expect(seen, 'not judged while the start is on its way').to.deep.equal([]);
      objects.replied('StartContainer', { containerId: 'c1' }, {});
      expect(seen.map((d) => d.seenBy)).to.deep.equal(['an NRI StopContainer event']);
    });
  });

  it('judges only objects the check knew before the listing was asked for', () => {
    const { objects, seen } = objectsWith(true);
    objects.listed([], new Set(), 0);
    expect(seen).to.deep.equal([]);
    objects.listed([{ id: 'p1', state: 'SANDBOX_NOTREADY' }], new Set(['c1']), performance.now() + 1);
    expect(seen.map((d) => [d.action, d.seenBy])).to.deep.equal([['stopped', 'ListPodSandbox']]);
  });

  it('gives the looks before Stop or Remove calls sent together one listing, so they still go out together', async () => {
    let listings = 0;
    const monitor = new DisturbanceMonitor(async () => {
      listings++;
      return { pods: [], containerIds: new Set<string>(), exitedContainerIds: new Set<string>() };
    });
    const { objects } = objectsWith(true);
    await Promise.all([monitor.lookBeforeEnding(objects), monitor.lookBeforeEnding(objects)]);
    expect(listings).to.equal(1);
    await monitor.lookBeforeEnding(objects);
    expect(listings, 'a later look asks anew').to.equal(2);
    monitor.stop();
  });

  describe('a pod of the check that no reply named (the build of a timed-out call)', () => {
    const labelled = (id: string, state: string) => ({
      id,
      state,
      labels: { [CHECK_LABEL]: 'UNIT-01' },
      metadata: { name: `cc-unit-01-${id}` },
    });
    const withCheckId = () => {
      const seen: Disturbance[] = [];
      const objects = new CheckObjects({
        besideAnotherClient: true,
        checkId: 'UNIT-01',
        onDisturbed: (d) => seen.push(d),
      });
      return { objects, seen };
    };

    it('is the check’s own once listed READY, so its stop by another client is a disturbance', () => {
      const { objects, seen } = withCheckId();
      objects.listed([labelled('t1', 'SANDBOX_READY'), { id: 'x', state: 'SANDBOX_READY' }], new Set(), 1);
      expect(seen, 'seen first, judged by the next listing').to.deep.equal([]);
      objects.listed([labelled('t1', 'SANDBOX_NOTREADY')], new Set(), 2);
      expect(seen.map((d) => [d.object, d.action])).to.deep.equal([['pod cc-unit-01-t1', 'stopped']]);
    });

    it('is not adopted during or before the check’s own sweep, which removes it', () => {
      const { objects, seen } = withCheckId();
      objects.endingAll();
      objects.listed([labelled('t1', 'SANDBOX_READY')], new Set(), performance.now());
      const askedBeforeTheSweepEnded = performance.now();
      objects.sweepDone();
      objects.listed([labelled('t1', 'SANDBOX_READY')], new Set(), askedBeforeTheSweepEnded);
      objects.listed([], new Set(), performance.now() + 1);
      expect(seen).to.deep.equal([]);
    });

    it('is not adopted without another client: the runtime may end its own timed-out builds', () => {
      const seen: Disturbance[] = [];
      const objects = new CheckObjects({
        besideAnotherClient: false,
        checkId: 'UNIT-01',
        onDisturbed: (d) => seen.push(d),
      });
      objects.listed([labelled('t1', 'SANDBOX_READY')], new Set(), 1);
      objects.nriEvent(nriEvent('StopPodSandbox', 't1'));
      expect(seen).to.deep.equal([]);
    });
  });

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
      monitor.stop();
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
      monitor.stop();
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
      monitor.stop();
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
      monitor.stop();
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
      monitor.stop();
      expect([ran.verdict, read.verdict]).to.deep.equal(['error', 'error']);
      expect(read.message).to.match(
        /^disturbed: pod cc-unit-01-scenario-[0-9a-f]{8} \(of the scenario UNIT-01 ran\) was stopped at .* seen by ListPodSandbox$/,
      );
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
      monitor.stop();
      expect(r.verdict, r.message).to.equal('passed');
    });
  });
});
