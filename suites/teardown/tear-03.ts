import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { describeStep, expectFaultsReached, expectRetryClears, stepOf } from './faulty-teardown.js';
import { recordedTeardown } from './recorded-teardown.js';
import { CONTAINER_TEARDOWN_REFUSED } from './scenarios.js';

export const check = defineCheck({
  id: 'TEAR-03',
  level: 'MUST',
  needs: ['nri'],
  title:
    'Plugin errors on StopContainer and RemoveContainer do not block them: each call is OK or a retry clears its error, the container exits, then is gone (NOT_FOUND)',
  contract:
    'NRI lifecycle contract (containerd/nri PR 286): teardown events are notifications that plugins cannot veto; cri-api v0.32.3 api.proto StopContainer "stops a running container", RemoveContainer "removes the container"',
  clauses: {
    stopped:
      'with a plugin failing its StopContainer hook the call is OK or a retry clears its error, and the container exits',
    removed:
      'with a plugin failing its RemoveContainer hook the call is OK or a retry clears its error, and the container is NOT_FOUND',
  },
  async run(t: CheckContext) {
    const { steps, containerId } = await recordedTeardown(t, CONTAINER_TEARDOWN_REFUSED);
    const stop = stepOf(t, steps, 'StopContainer');
    const remove = stepOf(t, steps, 'RemoveContainer');
    t.observe('stop-reply', describeStep(stop));
    t.observe('remove-reply', describeStep(remove));
    expectRetryClears(t, stop, 'stopped');
    expectRetryClears(t, remove, 'removed');
    const id = shortId(containerId);
    t.expect(
      stop.containerState === 'CONTAINER_EXITED',
      `with plugin 10 failing its StopContainer hook, container ${id} is ${stop.containerState} after ${describeStep(stop)}`,
      'stopped',
    );
    t.expect(
      remove.containerState === 'GONE',
      `with plugin 10 failing its RemoveContainer hook, ContainerStatus(${id}) still answers ${remove.containerState} after ${describeStep(remove)}`,
      'removed',
    );
    // Last: a runtime whose failed StopContainer sends its hook again in RemoveContainer meets plugin 10's
    // error there first and may never send RemoveContainer's, and that failure is found above.
    expectFaultsReached(t, CONTAINER_TEARDOWN_REFUSED, steps);
  },
});
