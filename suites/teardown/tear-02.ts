import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { describeReply } from '../common/replies.js';
import { describeStep, expectFaultsReached, expectRetryClears, stepOf } from './faulty-teardown.js';
import { recordedTeardown } from './recorded-teardown.js';
import { REMOVE_POD_REFUSED } from './scenarios.js';

export const check = defineCheck({
  id: 'TEAR-02',
  level: 'MUST',
  needs: ['nri'],
  title:
    'A plugin error on RemovePodSandbox does not block removal: the call is OK or a retry clears its error, the sandbox is gone (NOT_FOUND) and its name reusable',
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286): plugin errors must not block teardown; cri-api v0.32.3 api.proto RemovePodSandbox "removes the sandbox"',
  clauses: {
    removed:
      'with a plugin failing its RemovePodSandbox hook the call is OK or a retry clears its error, the sandbox is NOT_FOUND and its name free',
  },
  async run(t: CheckContext) {
    const { steps, podId, podConfig } = await recordedTeardown(t, REMOVE_POD_REFUSED);
    expectFaultsReached(t, REMOVE_POD_REFUSED, steps);
    const remove = stepOf(t, steps, 'RemovePodSandbox');
    t.observe('remove-reply', describeStep(remove));
    expectRetryClears(t, remove, 'removed');
    t.expect(
      remove.podState === 'GONE',
      `with plugin 10 failing its RemovePodSandbox hook, PodSandboxStatus(${shortId(podId)}) still answers ${remove.podState} after ${describeStep(remove)}`,
      'removed',
    );
    t.step('run a pod with the identical metadata: the name must be free');
    const again = await t.cri.tryRunPod(podConfig);
    t.expect(
      again.ok,
      `RunPodSandbox with the removed sandbox's name ${podConfig.metadata.name} failed: ${describeReply(again)}`,
      'removed',
    );
  },
});
