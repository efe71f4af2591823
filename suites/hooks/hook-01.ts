import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import {
  bySeq,
  describeEvents,
  duplicates,
  missingMessage,
  orderViolation,
  POD_EVENTS,
  receivedBy,
} from '../common/events.js';
import { deliveryWithinMs, quietWindowMs } from '../common/timing.js';

export const check = defineCheck({
  id: 'HOOK-01',
  level: 'MUST',
  needs: ['nri'],
  title:
    'Pod events arrive once each, in the order RunPodSandbox, StopPodSandbox, RemovePodSandbox, with the metadata of the request',
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286, docs/pod-sandbox-lifecycle.md): each pod gets RunPodSandbox, StopPodSandbox and RemovePodSandbox in lifecycle order',
  clauses: {
    'each-once': 'each pod event arrives, and arrives once',
    order: 'the pod events arrive in the order RunPodSandbox, StopPodSandbox, RemovePodSandbox',
    metadata: "each event carries the request's name, uid, namespace and labels",
  },
  async run(t: CheckContext) {
    const config = t.make.pod('hook-01');
    const plugin = await t.nri.plugin({ index: '10', events: POD_EVENTS });
    t.step('run, stop and remove one pod');
    const podId = await t.cri.runPod(config);
    await t.cri.stopPod(podId);
    await t.cri.removePod(podId);

    await receivedBy(plugin, { podId }, POD_EVENTS, deliveryWithinMs(t));
    // A duplicate can come late (an asynchronous relay): keep listening a short while after the last event.
    const seen = plugin.events({ podId }).length;
    await t
      .holdsFor(
        () => plugin.events({ podId }).length === seen,
        quietWindowMs(t),
        'no late pod event',
        'each-once',
      )
      .catch(() => undefined);
    const got = plugin.events({ podId }).sort(bySeq);
    const missing = missingMessage(plugin, got, POD_EVENTS);
    t.expect(missing === '', missing, 'each-once');
    // Order first: a Remove event delivered early and then again is out of order before it is twice.
    const order = orderViolation(plugin, got, POD_EVENTS);
    t.expect(order === '', order, 'order');
    const twice = duplicates(got);
    t.expect(
      twice.length === 0,
      `plugin 10 got ${describeEvents(got)}: ${twice.join(', ')}; expected each once`,
      'each-once',
    );

    for (const e of got) {
      const { name, uid, namespace } = e.pod;
      const want = config.metadata;
      t.expect(
        name === want.name && uid === want.uid && namespace === want.namespace,
        `${e.event}#${e.seq} carried name=${name} uid=${uid} namespace=${namespace}; the request had name=${want.name} uid=${want.uid} namespace=${want.namespace}`,
        'metadata',
      );
      const lost = Object.entries(config.labels).filter(([k, v]) => e.pod.labels[k] !== v);
      t.expect(
        lost.length === 0,
        `${e.event}#${e.seq} lacks request labels ${lost.map(([k, v]) => `${k}=${v}`).join(', ')}`,
        'metadata',
      );
    }
  },
});
