import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { TrialEvidence } from '../common/trial-leftovers.js';
import { availablePaths, driveTimeoutPath, pathOfTrial } from './timeout-paths.js';

export const check = defineCheck({
  id: 'IDEM-14',
  level: 'MUST',
  tags: ['Node'],
  needs: ['exclusive'],
  trials: {
    scale: 3,
    why: 'each of five timeout paths is ended by a deadline and by a cancel, and a leak a runtime shows on a path only now and then gets a third attempt there',
  },
  title:
    'Once a timed-out or cancelled request has converged and its pod is removed, the host holds nothing of the abandoned attempt',
  contract:
    'kubelet PodResourcesAreReclaimed: after removal no process, cgroup or netns of the pod may remain; cri-api v0.32.3 api.proto RemovePodSandbox "removes the sandbox"; checks.md "Leaks that the CRI cannot see count"',
  async run(t: CheckContext) {
    const paths = availablePaths(t);
    if (paths.length === 0) {
      t.skip(
        'needs a place to hold a creation: a slow runtime handler, a slow CNI wrapper or NRI (see README "Injectors")',
      );
    }
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
  },
});
