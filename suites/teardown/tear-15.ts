import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { describeStep, expectFaultsReached } from './faulty-teardown.js';
import { recordedTeardown } from './recorded-teardown.js';
import { LOWER_PLUGIN_REFUSES } from './scenarios.js';

export const check = defineCheck({
  id: 'TEAR-15',
  level: 'SHOULD',
  needs: ['nri'],
  title:
    'When only a plugin failed, StopContainer, RemoveContainer, StopPodSandbox and RemovePodSandbox themselves return OK, so the kubelet has nothing to retry',
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286): teardown events are notifications and plugin errors are logged; cri-api v0.32.3 api.proto: StopPodSandbox/RemovePodSandbox "must not return an error if all relevant resources have already been reclaimed"',
  clauses: {
    'calls-ok': 'when only a plugin failed, every teardown call itself returns OK',
  },
  async run(t: CheckContext) {
    // TEAR-05's scenario: its witness plugin at index 20 only records, so plugin 10 is all that is wrong.
    const { steps } = await recordedTeardown(t, LOWER_PLUGIN_REFUSES);
    expectFaultsReached(t, LOWER_PLUGIN_REFUSES, steps);
    const failed = steps.filter((s) => !s.reply.ok);
    t.expect(
      failed.length === 0,
      `with only plugin 10 failing its hooks: ${failed.map(describeStep).join('; ')}`,
      'calls-ok',
    );
  },
});
