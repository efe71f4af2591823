import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { expectOnePod } from '../common/census.js';
import { runPodAfterTimeout } from './scenarios.js';

export const check = defineCheck({
  id: 'IDEM-02',
  level: 'MUST',
  needs: ['creation-delay'],
  title:
    'After a timed-out RunPodSandbox converges, exactly one sandbox with its metadata exists and nothing half-made is left',
  contract:
    'kubelet: retries a timed-out RunPodSandbox with the same metadata and manages exactly one sandbox per pod attempt (a second one with the same metadata is an orphan it has to kill); CRI-O issue 4221 (ResourceCache)',
  clauses: {
    'one-sandbox': 'after the retries converge exactly one sandbox with the metadata exists, and stays one',
  },
  async run(t: CheckContext) {
    const { config, evidence } = await runPodAfterTimeout(
      t,
      'idem-02',
      t.inject.creationDelay(),
      'one-sandbox',
    );
    await expectOnePod(t, config.metadata.name, `after the retries converged (${evidence})`, 'one-sandbox');
  },
});
