import { expect } from 'chai';
import { CHECK_LABEL, RUN_LABEL } from '../core/labels.js';
import { CheckObjects, type Disturbance, describeDisturbance } from './disturbance.js';
import { DisturbanceMonitor } from './disturbance-monitor.js';
import type { AnsweredStop } from './own-stop.js';

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

  it('takes an NRI Stop event for a pod the check made and never stopped as the kubelet’s, beside one', () => {
    const { objects, seen } = objectsWith(true);
    objects.nriEvent(nriEvent('StopPodSandbox', 'p1'));
    expect(seen.map((d) => d.by)).to.deep.equal(['another client']);
    expect(describeDisturbance(seen[0] as Disturbance)).to.match(
      /^disturbed: pod cc-unit-a was stopped at \d\d:\d\d:\d\d\.\d{3} by another client \(a kubelet\?\), seen by an NRI StopPodSandbox event$/,
    );
  });

  it('takes such an event as the runtime’s own doing without a kubelet: nobody else knows the pod', () => {
    for (const [event, object] of [
      ['StopPodSandbox', 'pod cc-unit-a was stopped'],
      ['RemovePodSandbox', 'pod cc-unit-a was removed'],
      ['RemoveContainer', 'container workload of pod cc-unit-a was removed'],
    ] as const) {
      const { objects, seen } = objectsWith(false);
      objects.nriEvent(nriEvent(event, 'p1', event === 'RemoveContainer' ? 'c1' : undefined));
      expect(
        seen.map((d) => d.by),
        event,
      ).to.deep.equal(['the runtime']);
      expect(describeDisturbance(seen[0] as Disturbance)).to.match(
        new RegExp(
          `^ended by the runtime itself: ${object} at \\d\\d:\\d\\d:\\d\\d\\.\\d{3} though no client asked for it \\(the check had not, and no kubelet drives the runtime\\), seen by an NRI ${event} event$`,
        ),
      );
    }
  });

  it('judges an event that came before the reply naming its object once the reply comes, whatever the timing', () => {
    for (const beside of [false, true]) {
      const seen: Disturbance[] = [];
      const objects = new CheckObjects({ besideAnotherClient: beside, onDisturbed: (d) => seen.push(d) });
      objects.nriEvent(nriEvent('StopPodSandbox', 'p-early'));
      expect(seen, 'not judged before the reply').to.deep.equal([]);
      objects.replied(
        'RunPodSandbox',
        { config: { metadata: { name: 'cc-unit-b' } } },
        { podSandboxId: 'p-early' },
      );
      expect(seen.map((d) => [d.by, d.object, d.action])).to.deep.equal([
        [beside ? 'another client' : 'the runtime', 'pod cc-unit-b', 'stopped'],
      ]);
    }
    const { objects, seen } = objectsWith(false);
    objects.nriEvent(nriEvent('RemovePodSandbox', 'never-named'));
    objects.nriEvent(nriEvent('StopPodSandbox', ''));
    expect(seen, 'a pod no reply names, or none at all, is never judged').to.deep.equal([]);
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

  it('takes a failed Stop or Remove of an object the check had already ended as the runtime’s failure, beside one too', () => {
    const { objects, seen } = objectsWith(true);
    const ctr = { containerId: 'c1' };
    objects.sending('StopContainer', ctr);
    objects.replied('StopContainer', ctr, {});
    const again = { containerId: 'c1' };
    objects.sending('StopContainer', again);
    objects.failed('StopContainer', again, 'NOT_FOUND');
    const remove = { containerId: 'c1' };
    objects.sending('RemoveContainer', remove);
    objects.failed('RemoveContainer', remove, 'UNKNOWN');
    expect(seen, 'IDEM-11 must be able to fail').to.deep.equal([]);
  });

  describe('a failed Remove or Stop of an object the check had already ended, beside another client', () => {
    const stoppedThenRemoving = () => {
      const objects = objectsWith(true);
      const stop = { containerId: 'c1' };
      objects.objects.sending('StopContainer', stop);
      objects.objects.replied('StopContainer', stop, {});
      const remove = { containerId: 'c1' };
      objects.objects.sending('RemoveContainer', remove);
      return { ...objects, remove };
    };

    it('met another client’s removal when the NRI RemoveContainer event came after the call went out', () => {
      for (const eventFirst of [false, true]) {
        const { objects, seen, remove } = stoppedThenRemoving();
        if (eventFirst) objects.nriEvent(nriEvent('RemoveContainer', 'p1', 'c1'));
        objects.failed('RemoveContainer', remove, 'UNKNOWN');
        if (!eventFirst) objects.nriEvent(nriEvent('RemoveContainer', 'p1', 'c1'));
        expect(describeDisturbance(seen[0] as Disturbance), `event first: ${eventFirst}`).to.match(
          /^disturbed: container workload of pod cc-unit-a was perhaps being removed at .* by another client \(a kubelet\?\), seen by its own RemoveContainer failing with UNKNOWN, and an NRI RemoveContainer event after it went out: another client's removal was under way$/,
        );
      }
    });

    it('is the runtime’s failure when the only event came before the call went out (the check’s own ending)', () => {
      const { objects, seen } = objectsWith(true);
      const remove = { containerId: 'c1' };
      objects.sending('RemoveContainer', remove);
      objects.replied('RemoveContainer', remove, {});
      objects.nriEvent(nriEvent('RemoveContainer', 'p1', 'c1'));
      const again = { containerId: 'c1' };
      objects.sending('RemoveContainer', again);
      objects.failed('RemoveContainer', again, 'NOT_FOUND');
      expect(seen, 'IDEM-11 must be able to fail').to.deep.equal([]);
    });

    it('is the runtime’s failure without another client, whatever events come', () => {
      const { objects, seen } = objectsWith(false);
      const remove = { containerId: 'c1' };
      objects.sending('StopContainer', { containerId: 'c1' });
      objects.sending('RemoveContainer', remove);
      objects.failed('RemoveContainer', remove, 'UNKNOWN');
      objects.nriEvent(nriEvent('RemoveContainer', 'p1', 'c1'));
      expect(seen).to.deep.equal([]);
    });
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

  it('says of a container meant to exit by itself that, beside a kubelet, its exit cannot be told from a stop', () => {
    const { objects, seen } = objectsWith(true);
    objects.exitsByItself('c1');
    objects.listed(
      [{ id: 'p1', state: 'SANDBOX_READY' }],
      new Set(['c1']),
      performance.now() + 1,
      new Set(['c1']),
    );
    expect(describeDisturbance(seen[0] as Disturbance)).to.match(
      /^disturbed: container workload of pod cc-unit-a exited by itself at \d\d:\d\d:\d\d\.\d{3}, as the check meant it to, or was stopped by another client \(a kubelet\?\): beside a kubelet the two cannot be told apart \(a kubelet stops every container of a pod it does not know, and the runtime shows that stop as it shows an exit: the container EXITED, an NRI StopContainer event\), seen by ListContainers$/,
    );
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

  describe('a StopContainer of the check’s own that answered OK, beside another client', () => {
    const SENT = Date.parse('2026-01-02T10:13:04.248Z');
    const stop = (over: Partial<AnsweredStop>): AnsweredStop => ({
      sentAtMs: SENT,
      graceMs: 1_000,
      latencyMs: 1_010,
      finishedAtMs: SENT + 1_005,
      ignoresTerm: true,
      ...over,
    });
    const judged = (beside: boolean, s: AnsweredStop, state = 'CONTAINER_EXITED') => {
      const { objects, seen } = objectsWith(beside);
      objects.stopAnswered('c1', s, state);
      return seen.map((d) => `${d.action}: ${d.seenBy}`);
    };

    it('is disturbed when the container had exited before the call went out', () => {
      expect(judged(true, stop({ finishedAtMs: SENT - 374, ignoresTerm: false }))).to.deep.equal([
        'stopped: its status: it had exited at 10:13:03.874, before its own StopContainer went out at 10:13:04.248',
      ]);
    });

    it('is disturbed when a container that ignores TERM exited before the call’s own grace ran out', () => {
      // The issue's TEAR-10: the kubelet's stop (1 s grace) began 374 ms before the check's own.
      expect(judged(true, stop({ finishedAtMs: SENT + 626, latencyMs: 630 }))).to.deep.equal([
        'perhaps being stopped: a container that ignores TERM ending before its own 1000 ms grace ran out (it exited at 10:13:04.874, 626 ms after its own StopContainer went out): another stop was already under way, or the runtime cut the grace short',
      ]);
      expect(judged(true, stop({ finishedAtMs: undefined, latencyMs: 25 })), 'no finishedAt').to.deep.equal([
        'perhaps being stopped: a container that ignores TERM ending before its own 1000 ms grace ran out (its own StopContainer answered in 25 ms): another stop was already under way, or the runtime cut the grace short',
      ]);
    });

    it('is nothing when the grace ran out first, when TERM may have ended it, when it still runs, or without a kubelet', () => {
      expect(judged(true, stop({}))).to.deep.equal([]);
      expect(judged(true, stop({ finishedAtMs: SENT + 20, ignoresTerm: false }))).to.deep.equal([]);
      expect(
        judged(true, stop({ finishedAtMs: undefined, latencyMs: 25 }), 'CONTAINER_RUNNING'),
      ).to.deep.equal([]);
      expect(judged(false, stop({ finishedAtMs: SENT - 374 }))).to.deep.equal([]);
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
    await monitor.stop();
  });

  describe('a pod of the check that no reply named (the build of a timed-out call)', () => {
    const labelled = (id: string, state: string) => ({
      id,
      state,
      labels: { [RUN_LABEL]: 'unit-run', [CHECK_LABEL]: 'UNIT-01' },
      metadata: { name: `cc-unit-01-${id}`, namespace: 'cri-conform' },
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

    it('is never adopted without every mark of the run’s own, whatever labels it carries', () => {
      const { objects, seen } = withCheckId();
      const foreign = {
        ...labelled('f1', 'SANDBOX_READY'),
        metadata: { name: 'api-7d9', namespace: 'payments' },
      };
      objects.listed([foreign], new Set(), 1);
      objects.listed([], new Set(), 2);
      expect(seen).to.deep.equal([]);
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
});
