import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectFaultsReached, overBound, unfinishedSteps } from './faulty-teardown.js';
import { recordedTeardown } from './recorded-teardown.js';
import { LOWER_PLUGIN_CRASHES, LOWER_PLUGIN_HANGS } from './scenarios.js';

export const check = defineCheck({
  id: 'TEAR-06',
  level: 'MUST',
  needs: ['nri', 'stalls-hooks'],
  title:
    'When plugin 10 hangs or crashes in a teardown hook, plugin 20 still receives the event and the CRI call returns within the plugin request timeout plus a margin, OK or cleared by a retry, with its object stopped or gone',
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286), multi-plugin delivery; containerd/nri pkg/adaptation: a timed-out or closed plugin is dropped and the event goes on to the next plugin',
  clauses: {
    completes:
      'with plugin 10 hanging or crashing in teardown hooks each call returns within the plugin request timeout plus a margin, OK or cleared by a retry, its object stopped or gone',
    'later-plugin': 'plugin 20 still receives each event plugin 10 hung or crashed in',
  },
  async run(t: CheckContext) {
    const problems: string[] = [];
    for (const [i, spec] of [LOWER_PLUGIN_HANGS, LOWER_PLUGIN_CRASHES].entries()) {
      // Fresh plugins for each scenario: the first scenario's pair would otherwise see the second pod too.
      if (i > 0) await t.cleanupNow();
      t.step(`plugin 10 answers every teardown event with ${spec.action.kind}`);
      const { steps, witnessGap } = await recordedTeardown(t, spec);
      // The calls' own failures first: a runtime that failed a call may never send the later hooks at all.
      const failed = [overBound(t, spec, steps), ...unfinishedSteps(spec, steps)].filter(Boolean);
      t.expect(failed.length === 0, failed.join('; '), 'completes');
      expectFaultsReached(t, spec, steps);
      if (witnessGap !== '') problems.push(witnessGap ?? `scenario ${spec.name} had no witness plugin`);
    }
    t.expect(problems.length === 0, problems.join('; '), 'later-plugin');
  },
});
