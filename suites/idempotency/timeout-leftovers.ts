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
  /** Paths the runtime turned out not to hold, with why: recorded once, and left out of later trials. */
  const notHeld = new Map<TimeoutPath, string>();
  await t.trials(async (trial) => {
    const run = await heldTrial(t, trial, paths, notHeld);
    const { path, ending, seen } = run;
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

/**
 * Drives trial `trial` on its path. A path the runtime cannot hold (containerd makes the OCI container at
 * start, so nothing times out in CreateContainer) is a recorded skip of that path, never a trial: the
 * trial goes to the next path that holds. When none holds, the check skips with the reasons.
 */
async function heldTrial(
  t: CheckContext,
  trial: number,
  paths: readonly TimeoutPath[],
  notHeld: Map<TimeoutPath, string>,
) {
  for (;;) {
    const left = paths.filter((p) => !notHeld.has(p));
    if (left.length === 0)
      t.skip(`no timeout path could be held: ${[...notHeld].map(([p, why]) => `${p}: ${why}`).join('; ')}`);
    const { path, ending } = pathOfTrial(left, trial);
    t.step(`trial ${trial}: the timeout lands in ${path}, ended by a ${ending}`);
    const seen = await TrialEvidence.start(t);
    const run = await driveTimeoutPath(t, path, ending, seen);
    if ('notHeld' in run) {
      notHeld.set(path, run.notHeld);
      t.step(`path ${path} not run: ${run.notHeld}`);
      t.observe(`path ${path}`, `not run: ${run.notHeld}`);
      await t.cleanupNow();
      continue;
    }
    t.observe(`trial ${trial} ${path} (${ending})`, run.line);
    return { ...run, path, ending, seen };
  }
}
