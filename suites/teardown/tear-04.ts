import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectFaultsReached, overBound, unfinishedSteps } from './faulty-teardown.js';
import { recordedTeardown } from './recorded-teardown.js';
import { LOWER_PLUGIN_HANGS } from './scenarios.js';

export const check = defineCheck({
  id: 'TEAR-04',
  level: 'MUST',
  needs: ['nri', 'stalls-hooks'],
  title:
    "A plugin that hangs in a teardown hook delays StopContainer, RemoveContainer, StopPodSandbox and RemovePodSandbox by at most the runtime's plugin request timeout plus a margin, and each still does its work: OK or cleared by a retry, the object stopped or gone",
  contract:
    'containerd/nri pkg/adaptation: every plugin request runs under the plugin request timeout, and a timed-out plugin is closed and skipped; NRI lifecycle contract (PR 286): teardown is never blocked by a plugin',
  clauses: {
    completes:
      'with a plugin hanging in every teardown hook each call returns within the plugin request timeout plus a margin, OK or cleared by a retry, its object stopped or gone',
  },
  async run(t: CheckContext) {
    const { steps } = await recordedTeardown(t, LOWER_PLUGIN_HANGS);
    // The calls' own failures first: a runtime that failed a call may never send the later hooks at all.
    const problems = [
      overBound(t, LOWER_PLUGIN_HANGS, steps),
      ...unfinishedSteps(LOWER_PLUGIN_HANGS, steps),
    ].filter(Boolean);
    t.expect(problems.length === 0, problems.join('; '), 'completes');
    expectFaultsReached(t, LOWER_PLUGIN_HANGS, steps);
  },
});
