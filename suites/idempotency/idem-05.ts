import { type CheckContext, defineCheck, shortId } from '../../src/harness/face.js';
import { createContainerAfterTimeout, nriCreateDelay } from './container-scenarios.js';
import type { Ending } from './scenarios.js';

/**
 * The two ways a kubelet's expired deadline reaches a runtime: its own copy of the deadline expiring first
 * (the client gives up a little later), or the client's cancel (a gRPC server that resets the stream first
 * hands the runtime Canceled). A runtime may take the two apart, so each is a path of its own: a known bug
 * on one never keeps the other, and its "the container starts", from being tested.
 */
const PATHS: readonly { name: string; ending: Ending; everyTrials: number }[] = [
  { name: "the runtime's deadline expiring first", ending: 'deadline', everyTrials: 1 },
  // The cancel races nothing (it arrives as Canceled every time), so a few trials of it are enough.
  { name: 'the client cancelling first', ending: 'cancel', everyTrials: 4 },
];

export const check = defineCheck({
  id: 'IDEM-05',
  level: 'MUST',
  needs: ['nri', 'stalls-hooks'],
  // Whether the runtime's code sees the expired deadline as DeadlineExceeded or as Canceled can be decided
  // by its gRPC server's own timers: a runtime that mishandles only one of them fails in a minority of
  // attempts, which --trials (20 by default) sees down to about 15% of them.
  trials: true,
  title:
    'A CreateContainer that timed out while the runtime was creating it converges under identical retries, and the container starts',
  contract:
    'kubelet: a CreateContainer that fails (deadline included) is sent again with the same metadata on the next pod sync; cri-api v0.32.3 api.proto StartContainer "starts the container"; CRI-O issue 4221 (ResourceCache)',
  clauses: {
    converges: 'identical retries of a timed-out CreateContainer converge',
    starts: 'the converged container starts',
  },
  async run(t: CheckContext) {
    // The NRI CreateContainer hook holds the request: the one place inside CreateContainer every NRI
    // runtime passes through (some create the OCI container only at StartContainer).
    await t.trials(async (trial) => {
      const taken = PATHS.filter((p) => (trial - 1) % p.everyTrials === 0);
      for (const [i, { name, ending }] of taken.entries()) {
        // Each path registers its own plugin 10: the one before goes with that path's objects.
        if (i > 0) await t.cleanupNow();
        await t.path(name, async () => {
          const { containerId, evidence } = await createContainerAfterTimeout(
            t,
            'idem-05',
            await nriCreateDelay(t),
            'converges',
            { ending },
          );
          await t.expectOk(
            `StartContainer of the converged container ${shortId(containerId)} (${evidence})`,
            t.cri.startContainer(containerId),
            'starts',
          );
          const state = await t.cri.containerStateOrGone(containerId);
          t.expect(
            state === 'CONTAINER_RUNNING',
            `the converged CreateContainer returned ${shortId(containerId)}, which is ${state} after StartContainer (${evidence})`,
            'starts',
          );
        });
      }
    });
  },
});
