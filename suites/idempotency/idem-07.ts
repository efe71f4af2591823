import { type CheckContext, CREATE_NOT_HELD, defineCheck } from '../../src/harness/face.js';
import { createContainerAfterTimeout, slowHandlerCreateDelay } from './container-scenarios.js';
import { expectReused } from './scenarios.js';

export const check = defineCheck({
  id: 'IDEM-07',
  level: 'SHOULD',
  // held-create: the injector proof before the run tells whether this runtime lets the handler hold it.
  needs: ['slow-runtime', 'held-create'],
  title:
    'The retry of a timed-out CreateContainer is served the container that the timed-out request created',
  contract:
    'CRI-O issue 4221 (ResourceCache): a container whose request timed out is kept and handed to the identical retry; seen through the slow runtime handler, which logs the id of every OCI create',
  async run(t: CheckContext) {
    // No NRI plugin on the path (see IDEM-03); the delay sits in the OCI runtime's create.
    const slow = t.inject.slowRuntime();
    const done = await createContainerAfterTimeout(t, 'idem-07', slowHandlerCreateDelay(slow), {
      // Where the proof could not tell (its test image was missing), the first attempt does.
      notHeld: (why) => t.skip(`${CREATE_NOT_HELD} (${why})`),
      // The timed-out build is logged before the retry, so the retry's own build cannot pass for it.
      builtBy: slow,
    });
    const built = (await slow.createdIds()).filter((id) => id !== done.podId);
    expectReused(t, built, done.containerId, 'containers', done.evidence);
  },
});
