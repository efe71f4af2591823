/**
 * IDEM-14 and IDEM-16: a trial per timeout path, each ended by a deadline or a cancel, then kubelet-like
 * retries and the pod's removal; whatever the abandoned attempt left on the host or in the runtime's
 * records fails the trial. The two checks differ only in where they hold the creation, which decides
 * whether they can share the runtime (an NRI hold stalls every pod's hooks).
 */
import { type CheckContext, shortId } from '../../src/harness/face.js';
import { TrialEvidence } from '../common/trial-leftovers.js';
import { driveTimeoutPath, pathOfTrial, type TimeoutPath } from './timeout-paths.js';

export const TRIALS_WHY =
  'three trials per timeout path: each path meets a deadline and a cancel, and a leak a runtime shows on a path only now and then gets a third attempt there';

export async function expectNoLeftoversAfterTimeouts(
  t: CheckContext,
  paths: readonly TimeoutPath[],
): Promise<void> {
  t.require(paths.length > 0, 'no timeout path can be held in this run');
  await t.trials(async (trial) => {
    const { path, ending } = pathOfTrial(paths, trial);
    t.step(`trial ${trial}: the timeout lands in ${path}, ended by a ${ending}`);
    const seen = await TrialEvidence.start(t);
    const run = await driveTimeoutPath(t, path, ending, seen);
    t.observe(`trial ${trial} ${path} (${ending})`, run.line);
    if (run.podId) {
      // Off the runtime's node this skips: no process of the pod is visible.
      const live = await t.host.snapshot(run.podId);
      seen.add(...live.ids);
    }
    await seen.look();
    for (const pod of await t.cri.listPods()) {
      await t.cri.stopPod(pod.id);
      await t.cri.removePod(pod.id);
    }
    const leaks = await seen.leftovers();
    t.expect(
      leaks === '',
      `after a ${ending} in ${path}, retries (${run.line}) and removal of ${run.podId ? shortId(run.podId) : 'every pod of the check'}, the host or runtime still holds ${leaks}`,
    );
  });
}
