import {
  type CheckContext,
  defineCheck,
  type NriEventName,
  type NriEventRecord,
  type TestPlugin,
} from '../../src/harness/face.js';
import { CONTAINER_EVENTS, missingMessage, POD_EVENTS, pluginIndex, receivedBy } from '../common/events.js';
import { deliveryWithinMs } from '../common/timing.js';

const EVENTS: readonly NriEventName[] = [...POD_EVENTS, ...CONTAINER_EVENTS];

export const check = defineCheck({
  id: 'HOOK-07',
  level: 'MUST',
  needs: ['nri'],
  title: 'Several plugins receive each event in ascending plugin index order',
  contract:
    'containerd/nri pkg/adaptation: plugins are sorted by index and every event walks them in that order (NRI README "plugin index"; lifecycle contract PR 286, multi-plugin delivery)',
  clauses: {
    'index-order': 'every plugin receives each event, in ascending plugin index order',
  },
  async run(t: CheckContext) {
    t.step('register plugins 30, 10 and 20, in that order, so registration order is not index order');
    const plugins: TestPlugin[] = [];
    for (const index of ['30', '10', '20']) plugins.push(await t.nri.plugin({ index, events: EVENTS }));
    const { podId } = await t.cri.runPodWithContainer('hook-07');
    await t.cri.stopPod(podId);
    await t.cri.removePod(podId);

    const received = new Map<TestPlugin, NriEventRecord[]>();
    for (const p of plugins) {
      const got = await receivedBy(p, { podId }, EVENTS, deliveryWithinMs(t));
      const missing = missingMessage(p, got, EVENTS);
      t.expect(missing === '', missing, 'index-order');
      received.set(p, got);
    }
    // The runtime orders plugins by comparing their index strings.
    const ascending = [...plugins].sort((a, b) => pluginIndex(a).localeCompare(pluginIndex(b)));
    for (const event of EVENTS) {
      const walk = ascending.map((p) => {
        const e = received.get(p)?.find((x) => x.event === event);
        return { index: pluginIndex(p), seq: e?.seq ?? Number.NaN };
      });
      const inOrder = walk.every((w, i) => i === 0 || (walk[i - 1]?.seq ?? Number.NaN) < w.seq);
      const bySeq = [...walk].sort((a, b) => a.seq - b.seq);
      t.expect(
        inOrder,
        `${event} reached the plugins in the order ${bySeq.map((w) => `${w.index} (#${w.seq})`).join(', ')}; expected 10, 20, 30`,
        'index-order',
      );
    }
  },
});
