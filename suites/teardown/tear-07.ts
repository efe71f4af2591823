import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { expectFaultsReached } from './faulty-teardown.js';
import { recordedTeardown } from './recorded-teardown.js';
import { LOWER_PLUGIN_CRASHES, LOWER_PLUGIN_HANGS } from './scenarios.js';

export const check = defineCheck({
  id: 'TEAR-07',
  level: 'MUST',
  needs: ['nri', 'stalls-hooks'],
  title:
    'A plugin the runtime disconnected (after a hang or a crash) can register again and then receives the events of new pods',
  contract:
    'containerd/nri pkg/adaptation: external plugins connect to the NRI socket at any time and are registered, configured and synchronized on connect; NRI lifecycle contract (PR 286)',
  clauses: {
    rejoins: 'a plugin the runtime disconnected can register again and then receives the events of new pods',
  },
  async run(t: CheckContext) {
    // The hang and crash scenarios of TEAR-04 and TEAR-06 bring the same plugin 10 back after every drop.
    const problems: string[] = [];
    for (const [i, spec] of [LOWER_PLUGIN_HANGS, LOWER_PLUGIN_CRASHES].entries()) {
      if (i > 0) await t.cleanupNow();
      const kind = spec.action.kind;
      t.step(`plugin 10 answers every teardown event with ${kind} and registers again after each`);
      const { steps, newPod } = await recordedTeardown(t, spec);
      expectFaultsReached(t, spec, steps);
      const drops = steps.flatMap((s) => (s.rejoin ? [[s.event, s.rejoin] as const] : []));
      t.observe(
        `disconnected after ${kind}`,
        drops.map(([event, r]) => `${event}: ${r.dropped ?? 'no'}`).join('; '),
      );
      const refused = drops.filter(([, r]) => r.refused !== '');
      if (refused.length > 0)
        problems.push(
          `plugin 10 could not register again after its ${kind} on ${refused.map(([event]) => event).join(', ')} (first refusal: ${refused[0]?.[1].refused})`,
        );
      if (newPod && !newPod.received)
        problems.push(
          `after its ${kind}s and registering again, plugin 10 did not get the RunPodSandbox of the new pod ${shortId(newPod.podId)}`,
        );
    }
    t.expect(problems.length === 0, problems.join('; '), 'rejoins');
  },
});
