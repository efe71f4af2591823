import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectFaultsReached } from './faulty-teardown.js';
import { recordedTeardown } from './recorded-teardown.js';
import { LOWER_PLUGIN_REFUSES } from './scenarios.js';

export const check = defineCheck({
  id: 'TEAR-05',
  level: 'MUST',
  needs: ['nri'],
  longWait:
    'a runtime that keeps an event from plugin 20 makes the check wait out the witness window (the margin), and TEAR-15 waits for the same scenario',
  title:
    'When plugin 10 fails a teardown event (StopContainer, RemoveContainer, StopPodSandbox, RemovePodSandbox), plugin 20 still receives it',
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286), multi-plugin delivery: a teardown event reaches every subscribed plugin even when an earlier one fails it',
  clauses: {
    'later-plugin': 'when plugin 10 fails a teardown event, plugin 20 still receives it',
  },
  async run(t: CheckContext) {
    const { steps, witnessGap } = await recordedTeardown(t, LOWER_PLUGIN_REFUSES);
    expectFaultsReached(t, LOWER_PLUGIN_REFUSES, steps);
    t.expect(witnessGap === '', witnessGap ?? 'the scenario had no witness plugin', 'later-plugin');
  },
});
