import { type CheckContext, defineCheck } from '../../src/harness/face.js';
import { describeStep, expectFaultsReached, expectRetryClears, stepOf } from './faulty-teardown.js';
import { recordedTeardown } from './recorded-teardown.js';
import { STOP_POD_REFUSED } from './scenarios.js';

export const check = defineCheck({
  id: 'TEAR-01',
  level: 'MUST',
  needs: ['nri'],
  title:
    'A plugin error on StopPodSandbox does not keep the sandbox from stopping: the call is OK or a retry clears its error, and the sandbox is NOTREADY',
  contract:
    'NRI pod-sandbox lifecycle contract (containerd/nri PR 286): StopPodSandbox is a notification, plugin errors must not block teardown; cri-api v0.32.3 api.proto StopPodSandbox "stops any running process that is part of the sandbox"',
  clauses: {
    stops:
      'with a plugin failing its StopPodSandbox hook the call is OK or a retry clears its error, and the sandbox is NOTREADY',
  },
  async run(t: CheckContext) {
    const { steps } = await recordedTeardown(t, STOP_POD_REFUSED);
    expectFaultsReached(t, STOP_POD_REFUSED, steps);
    const stop = stepOf(t, steps, 'StopPodSandbox');
    t.observe('stop-reply', describeStep(stop));
    expectRetryClears(t, stop, 'stops');
    t.expect(
      stop.podState === 'SANDBOX_NOTREADY',
      `with plugin 10 failing its StopPodSandbox hook, the sandbox is ${stop.podState} after ${describeStep(stop)}`,
      'stops',
    );
  },
});
