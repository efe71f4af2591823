import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { recordedTeardown } from './recorded-teardown.js';
import { LEAK_PROBED_SCENARIOS } from './scenarios.js';

export const check = defineCheck({
  id: 'TEAR-13',
  level: 'MUST',
  tags: ['Node'],
  needs: ['nri', 'stalls-hooks'],
  title:
    'A failing, hanging or crashing plugin leaks nothing: after each TEAR-01..06 scenario the host holds nothing of the pod',
  contract:
    'kubelet PodResourcesAreReclaimed (pkg/kubelet/kubelet_pods.go); NRI pod-sandbox lifecycle contract (containerd/nri PR 286): plugins cannot block teardown',
  clauses: {
    'nothing-left':
      'after each failing, hanging or crashing plugin scenario the host holds nothing of the pod',
  },
  async run(t: CheckContext) {
    // Without host probes every probe call skips the check, with the reason ([Node]).
    if (!t.host.available) await t.host.stillHeld([]);
    const problems: string[] = [];
    for (const [i, [owner, spec]] of LEAK_PROBED_SCENARIOS.entries()) {
      // Fresh plugins for a scenario this check runs itself (one an earlier check ran is only read).
      if (i > 0) await t.cleanupNow();
      t.step(`${owner} scenario ${spec.name}, with a host snapshot while the pod runs`);
      const { leftovers, probeSkipped } = await recordedTeardown(t, spec);
      if (leftovers === undefined)
        t.skip(probeSkipped ?? `${owner}: the scenario ran without a host snapshot`);
      if (leftovers !== '') problems.push(`after ${owner} (${spec.name}): ${leftovers}`);
    }
    t.expect(problems.length === 0, problems.join(' | '), 'nothing-left');
  },
});
