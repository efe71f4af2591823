import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { tearDownWithFaultyPlugin } from './faulty-teardown.js';
import { finishTeardown, leftoversOf, snapshotOf } from './leaks.js';
import { LEAK_PROBED_SCENARIOS } from './scenarios.js';

export const check = defineCheck({
  id: 'TEAR-13',
  level: 'MUST',
  tags: ['Node'],
  needs: ['nri'],
  title:
    'A failing, hanging or crashing plugin leaks nothing: after each TEAR-01..06 scenario the host holds nothing of the pod',
  contract:
    'kubelet PodResourcesAreReclaimed (pkg/kubelet/kubelet_pods.go); NRI pod-sandbox lifecycle contract (containerd/nri PR 286): plugins cannot block teardown',
  async run(t: CheckContext) {
    const problems: string[] = [];
    for (const [owner, spec] of LEAK_PROBED_SCENARIOS) {
      t.step(`${owner} scenario ${spec.name}, with a host snapshot while the pod runs`);
      const outcome = await tearDownWithFaultyPlugin(t, spec, snapshotOf(t));
      const { live: snapshot } = outcome;
      t.expect(snapshot !== undefined, `${owner}: no snapshot was taken`);
      const failed = await finishTeardown(t, outcome.podId);
      const leaks = await leftoversOf(t, snapshot);
      if (failed !== '' || leaks !== '') {
        problems.push(
          `after ${owner} (${spec.name}): ${[failed && `teardown failed: ${failed}`, leaks].filter(Boolean).join('; ')}`,
        );
      }
      // Fresh plugins for the next scenario.
      await t.cleanupNow();
    }
    t.expect(problems.length === 0, problems.join(' | '));
  },
});
