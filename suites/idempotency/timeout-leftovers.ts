/**
 * IDEM-14 and IDEM-16: a trial per timeout path, each ended by a deadline or a cancel, then kubelet-like
 * retries and the pod's removal; whatever the abandoned attempt left on the host or in the runtime's
 * records fails the trial. The two checks differ only in where they hold the creation, which decides
 * whether they can share the runtime (an NRI hold stalls every pod's hooks).
 */
import { type CheckContext, shortId } from '../../src/harness/face.js';
import { TrialEvidence } from '../common/trial-leftovers.js';
import { retryBuildsNamedIn } from './retry-builds.js';
import type { Ending } from './scenarios.js';
import {
  clauseOfPath,
  driveTimeoutPath,
  NRI_PATHS,
  nriPathsPlugin,
  pathOfTrial,
  type TimeoutPath,
} from './timeout-paths.js';

export const TRIALS_WHY =
  "--trials on each timeout path, taken in turns: a leak a runtime shows on one path only gets all of that path's trials, and each path meets a deadline and a cancel in alternate rounds";

export async function expectNoLeftoversAfterTimeouts(
  t: CheckContext,
  paths: readonly TimeoutPath[],
): Promise<void> {
  t.require(paths.length > 0, 'no timeout path can be held in this run');
  /** Paths the runtime turned out not to hold, with why: recorded once, and left out of later trials. */
  const notHeld = new Map<TimeoutPath, string>();
  const markNotHeld = (path: TimeoutPath, why: string) => {
    notHeld.set(path, why);
    t.step(`path ${path} not run: ${why}`);
    t.observe(`path ${path}`, `not run: ${why}`);
  };
  // Known before the first trial (the run's injector proof), a path cannot hold is not planned for.
  const knownNotHeld = t.inject.createNotHeld();
  if (knownNotHeld !== undefined && paths.includes('container: runtime create'))
    markNotHeld('container: runtime create', knownNotHeld);
  const planned = paths.filter((p) => !notHeld.has(p));
  const nri = paths.some((p) => (NRI_PATHS as readonly TimeoutPath[]).includes(p))
    ? nriPathsPlugin(t)
    : undefined;
  await t.trials(
    async (trial) => {
      for (;;) {
        const left = paths.filter((p) => !notHeld.has(p));
        if (left.length === 0)
          t.skip(
            `no timeout path could be held: ${[...notHeld].map(([p, why]) => `${p}: ${why}`).join('; ')}`,
          );
        const { path, ending } = pathOfTrial(left, trial);
        // A path the runtime cannot hold is left out of later trials; one that showed a known deviation is not.
        let unheld: string | undefined;
        await t.path(path, async () => {
          const outcome = await leftoversAfterTimeout(t, trial, path, ending, nri);
          if (outcome === undefined) return;
          unheld = outcome.notHeld;
          return 'not run';
        });
        if (unheld === undefined) return;
        markNotHeld(path, unheld);
        await t.cleanupNow();
      }
    },
    undefined,
    Math.max(1, planned.length),
  );
}

/**
 * One trial on `path`: the timeout, the retries and the pod's removal; nothing of the attempt may remain.
 * A path the runtime cannot hold (containerd makes the OCI container at start, so nothing times out in
 * CreateContainer) is a recorded skip of that path, never a trial: it returns why, and the trial goes to
 * the next path that holds. When none holds, the check skips with the reasons.
 */
async function leftoversAfterTimeout(
  t: CheckContext,
  trial: number,
  path: TimeoutPath,
  ending: Ending,
  nri: Parameters<typeof driveTimeoutPath>[4],
): Promise<{ notHeld: string } | undefined> {
  t.step(`trial ${trial}: the timeout lands in ${path}, ended by a ${ending}`);
  const seen = await TrialEvidence.start(t);
  const run = await driveTimeoutPath(t, path, ending, seen, nri);
  if ('notHeld' in run) return run;
  t.observe(`trial ${trial} ${path} (${ending})`, run.line);
  if (run.podId) {
    // Off the runtime's node this skips: no process of the pod is visible.
    const live = await t.host.snapshot(run.podId);
    seen.add(...live.ids);
  }
  await seen.look();
  const removedIds: string[] = [];
  for (const pod of await t.cri.listPods()) {
    await t.cri.stopPod(pod.id);
    await t.cri.removePod(pod.id);
    removedIds.push(shortId(pod.id));
  }
  // One finding per build that left something: the first attempt's and a cut-off retry's leftovers may
  // come from two different bugs, and each is judged on its own (an entry must name every one). Where no
  // retry converged the removed pods are named: a leftover of one of them is another bug than a leftover
  // of a build the runtime never listed.
  const removed = run.podId
    ? shortId(run.podId)
    : `every pod of the check (${removedIds.join(', ') || 'none was listed'})`;
  const holding = (leaks: string) =>
    `after a ${ending} in ${path}, retries (${run.line}) and removal of ${removed}, the host or runtime still holds ${leaks}${retryBuildsNamedIn(leaks, run.retries)}`;
  const byBuild = await seen.leftoversByBuild();
  t.expectNone(byBuild.map(holding), clauseOfPath(path), holding(byBuild.join('; ')));
  // A timeout that landed before the path's delay left nothing, but tested another place: not this path.
  if (run.missedDelay) t.missed(`${run.missedDelay}: the timeout did not land in ${path}`, run.laterNext);
  return undefined;
}
