import {
  type CheckContext,
  defineCheck,
  type SlowCni,
  shortId,
  type TestPlugin,
} from '../../src/harness/face.js';
import { describeEvents } from '../common/events.js';
import { describeReply } from '../common/replies.js';
import { deliveryWithinMs, quietWindowMs } from '../common/timing.js';

/** Pods raced at once in each trial: the race is rare, so each trial gives it several chances. */
const PODS_PER_TRIAL = 8;
/**
 * StopPodSandbox calls sent at once to each pod. Any two of them are a kubelet retry racing the first
 * call; four at once give the race six such pairs per pod instead of one.
 */
const STOPS_AT_ONCE = 4;

/** STOPS_AT_ONCE StopPodSandbox on one pod; returns what went wrong ('' when all were OK and it stopped). */
async function raceStops(t: CheckContext, pod: { podId: string; containerId: string }): Promise<string> {
  const stop = () => t.cri.tryCall('StopPodSandbox', { podSandboxId: pod.podId });
  const replies = await Promise.all(Array.from({ length: STOPS_AT_ONCE }, stop));
  if (!replies.every((r) => r.ok)) return `${shortId(pod.podId)}: ${replies.map(describeReply).join(' / ')}`;
  const sandbox = await t.cri.podStatus(pod.podId);
  const ctr = await t.cri.containerStatus(pod.containerId);
  if (sandbox.state === 'SANDBOX_NOTREADY' && ctr.state === 'CONTAINER_EXITED') return '';
  return `${shortId(pod.podId)}: all stops returned OK, but the sandbox is ${sandbox.state} and its container ${ctr.state}`;
}

/**
 * Teardown ran once for each pod: every plugin got one StopPodSandbox event. Waits for owed events, then a
 * quiet window for late duplicates. Returns the violations.
 */
async function tornDownTwice(
  t: CheckContext,
  plugins: readonly TestPlugin[],
  cni: SlowCni | undefined,
  podIds: readonly string[],
): Promise<string[]> {
  const endAt = Date.now() + deliveryWithinMs(t);
  for (const plugin of plugins) {
    for (const podId of podIds) {
      const what = `StopPodSandbox of ${shortId(podId)} at plugin ${plugin.label}`;
      await plugin
        .waitFor({ event: 'StopPodSandbox', podId }, { withinMs: Math.max(0, endAt - Date.now()), what })
        .catch(() => undefined);
    }
  }
  // The trial's own pods only: the trials beside it stop theirs meanwhile.
  const count = () =>
    plugins.flatMap((p) => p.events({ event: 'StopPodSandbox' })).filter((e) => podIds.includes(e.pod.id))
      .length;
  const seen = count();
  await t
    .holdsFor(() => count() === seen, quietWindowMs(t), 'no late StopPodSandbox event', 'teardown-once')
    .catch(() => undefined);
  const problems: string[] = [];
  for (const plugin of plugins) {
    for (const podId of podIds) {
      const got = plugin.events({ event: 'StopPodSandbox', podId });
      if (got.length !== 1)
        problems.push(
          `plugin ${plugin.label} got ${got.length} StopPodSandbox for ${shortId(podId)} ${describeEvents(got)}`,
        );
    }
  }
  // CNI DEL is recorded, not asserted: the CNI spec lets a runtime repeat DEL, and containerd sends one on
  // every StopPodSandbox, even on a pod that is already stopped. The NRI events above say whether teardown ran.
  if (cni) {
    const dels = await cni.deletedIds();
    const perPod = podIds.map((podId) => dels.filter((id) => id === podId).length);
    t.observe('cni-dels-per-pod', perPod.join(','));
  }
  return problems;
}

export const check = defineCheck({
  id: 'IDEM-15',
  level: 'SHOULD',
  // Counts StopPodSandbox events with its own plugins.
  needs: ['nri'],
  uses: ['slow-cni'],
  trials: {
    scale: 2,
    why: 'concurrent network teardowns collide only now and then (a CNI DEL that finds the link already gone): about one pod in ten where it happens at all',
  },
  loadsRuntime:
    'eight pods with a container per trial and four StopPodSandbox calls on each, trials side by side: on a two-core VM the checks beside it missed their latency bounds (TEAR-10, TEAR-12: stops of 5.1 s and 4.6 s against 4 s)',
  title:
    'Concurrent StopPodSandbox calls on one sandbox (a kubelet retry racing the first) all return OK, the sandbox ends stopped and removable, and its teardown runs once',
  contract:
    'cri-api v0.32.3 api.proto StopPodSandbox "This call is idempotent ... multiple StopPodSandbox calls are expected"; kubelet: a timed-out StopPodSandbox is retried while the first may still run; NRI pod-sandbox lifecycle contract (PR 286): one StopPodSandbox event per pod',
  clauses: {
    'stops-ok': 'concurrent StopPodSandbox calls on one sandbox all return OK and leave it stopped',
    'teardown-once': 'its teardown runs once: every plugin gets one StopPodSandbox event',
  },
  async run(t: CheckContext) {
    const countDels = t.inject.offers('slow-cni') === undefined;
    // Two plugins for all trials: each trial counts the events of its own pods. (A plugin per trial would
    // cost each trial two registrations, which a runtime admits one at a time.)
    const plugins = [
      await t.nri.plugin({ index: '10', events: ['StopPodSandbox'], name: 'cri-conform-idem-15-a' }),
      await t.nri.plugin({ index: '20', events: ['StopPodSandbox'], name: 'cri-conform-idem-15-b' }),
    ];
    await t.trials(async () => {
      // Taken before the pods are made: the wrapper logs the DELs of a trial's pods once the trial holds it.
      const cni = countDels ? t.inject.slowCni() : undefined;
      const names = Array.from({ length: PODS_PER_TRIAL }, (_, i) => `idem-15-${i}`);
      const pods = await Promise.all(names.map((name) => t.cri.runPodWithContainer(name)));
      t.step(`${STOPS_AT_ONCE} StopPodSandbox at once on each of ${pods.length} pods`);
      const problems = (await Promise.all(pods.map((pod) => raceStops(t, pod)))).filter((p) => p !== '');
      t.expect(problems.length === 0, `concurrent StopPodSandbox calls: ${problems.join('; ')}`, 'stops-ok');
      const twice = await tornDownTwice(
        t,
        plugins,
        cni,
        pods.map((p) => p.podId),
      );
      t.expect(twice.length === 0, `teardown did not run once per pod: ${twice.join('; ')}`, 'teardown-once');
      await Promise.all(pods.map((pod) => t.cri.removePod(pod.podId)));
    });
  },
});
