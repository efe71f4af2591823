import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectFaultsReached, overBound } from './faulty-teardown.js';
import { recordedTeardown } from './recorded-teardown.js';
import { LOWER_PLUGIN_HANGS } from './scenarios.js';

export const check = defineCheck({
  id: 'TEAR-04',
  level: 'MUST',
  needs: ['nri', 'stalls-hooks'],
  title:
    "A plugin that hangs in a teardown hook delays StopContainer, RemoveContainer, StopPodSandbox and RemovePodSandbox by at most the runtime's plugin request timeout plus a margin",
  contract:
    'containerd/nri pkg/adaptation: every plugin request runs under the plugin request timeout, and a timed-out plugin is closed and skipped; NRI lifecycle contract (PR 286): teardown is never blocked by a plugin',
  async run(t: CheckContext) {
    const { steps } = await recordedTeardown(t, LOWER_PLUGIN_HANGS);
    expectFaultsReached(t, LOWER_PLUGIN_HANGS, steps);
    const slow = overBound(t, LOWER_PLUGIN_HANGS, steps);
    t.expect(slow === '', slow);
  },
});
