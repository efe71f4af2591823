import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { DELAY_MS } from '../common/timing.js';
import { claimAndRemove } from './claim.js';
import { timeOutOnSlowHandler } from './slow-handler.js';

/**
 * How long after its slow step ends a runtime may still be finishing the held build (starting the sandbox,
 * its network, the Run hook) and doing its asynchronous bookkeeping of it (a task-start event that sets the
 * state): a sandbox that becomes READY or usable by then was published by the build, not by a later claim.
 */
const BUILD_SETTLE_MS = 2_000;
/** CreateContainer is tried this often while the sandbox is watched: each try is a real create attempt. */
const CREATE_EVERY_MS = 500;

export const check = defineCheck({
  id: 'IDEM-04',
  level: 'SHOULD',
  needs: ['slow-runtime'],
  title:
    'A timed-out sandbox held for reuse is neither reported READY by ListPodSandbox or PodSandboxStatus nor usable by CreateContainer, from the timeout until its build has ended and settled',
  contract:
    'CRI-O issue 4221 (ResourceCache): a cached sandbox is not published until the retry claims it; the kubelet treats a READY sandbox it never got an id for as an orphan, and a container created in it would run in a pod nobody owns',
  clauses: {
    unreported: 'the held sandbox is not reported READY by ListPodSandbox or PodSandboxStatus',
    unusable: 'the held sandbox takes no container',
  },
  async run(t: CheckContext) {
    const timedOut = await timeOutOnSlowHandler(t, 'idem-04');
    const heldId = timedOut.builtId;
    const name = timedOut.config.metadata.name;
    // The handler has logged the create by now, so its delay (the build's slow step) ends within its hold.
    const watchMs = (timedOut.first.holdMs ?? DELAY_MS) + BUILD_SETTLE_MS;
    /** How the held sandbox was published, and the clause that breaks. */
    let published: { how: string; clause: 'unreported' | 'unusable' } | undefined;
    let nextCreateAt = 0;
    const unpublished = async () => {
      const listed = await t.cri.listPods({ name, state: 'SANDBOX_READY' });
      // Hidden (NOT_FOUND) or not READY; any other status error is no proof and ends the check in ERROR.
      const state = await t.cri.podStateOrGone(heldId);
      if (listed.length > 0 || state === 'SANDBOX_READY') {
        published = {
          how: `ListPodSandbox shows ${listed.length} READY sandbox(es) named ${name}, PodSandboxStatus of ${shortId(heldId)} says ${state}`,
          clause: 'unreported',
        };
        return false;
      }
      if (Date.now() < nextCreateAt) return true;
      nextCreateAt = Date.now() + CREATE_EVERY_MS;
      const create = await t.cri.tryCall('CreateContainer', {
        podSandboxId: heldId,
        config: t.make.container('intruder'),
        sandboxConfig: timedOut.config,
      });
      if (!create.ok) return true;
      // Took a container while hidden (unusable broke), or because it was published meanwhile (listed).
      const nowListed = (await t.cri.listPods({ name, state: 'SANDBOX_READY' })).length > 0;
      published = {
        how: `CreateContainer into it succeeded (container ${shortId(create.value.containerId)})${nowListed ? `, and ListPodSandbox now shows it READY` : ''}`,
        clause: nowListed ? 'unreported' : 'unusable',
      };
      return false;
    };
    t.step(
      `watch the held sandbox ${shortId(heldId)} until its build has ended (the handler's ${watchMs - BUILD_SETTLE_MS} ms from its logged create at the latest) and ${BUILD_SETTLE_MS} ms more, trying CreateContainer into it every ${CREATE_EVERY_MS} ms`,
    );
    await t
      .holdsFor(
        unpublished,
        watchMs,
        `the timed-out sandbox ${shortId(heldId)} (or any sandbox named ${name}) to stay un-READY and unusable while nobody claimed it`,
        'unreported',
      )
      .catch((e: unknown) => {
        t.expect(
          published === undefined,
          `the unclaimed timed-out sandbox ${shortId(heldId)} was published: ${published?.how}`,
          published?.clause ?? 'unreported',
        );
        throw e;
      });
    // What was watched is a sandbox held for reuse only if the identical request is then served it: a
    // runtime that let it go (and builds anew for the retry) held nothing, and the watch proved nothing.
    const claimed = await claimAndRemove(t, timedOut);
    t.require(
      claimed !== undefined,
      `the identical RunPodSandbox could not claim what the timed-out one left, so whether the runtime held ${shortId(heldId)} for reuse is unknown`,
    );
    if (claimed !== heldId)
      t.skip(
        `the runtime holds nothing for reuse: the identical RunPodSandbox got ${shortId(claimed)}, not the timed-out build ${shortId(heldId)} (IDEM-03 judges reuse), so no held sandbox was watched`,
      );
  },
});
