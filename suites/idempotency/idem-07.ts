import { type CheckContext, CREATE_NOT_HELD, defineCheck, shortId } from '../../src/harness/face.js';
import { timeOutHeldContainer } from './container-scenarios.js';
import { buildReachedCreate, converge, expectReused, kubeletBackoff } from './scenarios.js';

export const check = defineCheck({
  id: 'IDEM-07',
  level: 'SHOULD',
  // held-create: the injector proof before the run tells whether this runtime lets the handler hold it.
  needs: ['slow-runtime', 'held-create'],
  title:
    'The retry of a timed-out CreateContainer is served the container that the timed-out request created',
  contract:
    'CRI-O issue 4221 (ResourceCache): a container whose request timed out is kept and handed to the identical retry; seen through the slow runtime handler, which logs the id of every OCI create',
  clauses: {
    reused:
      'the retry of a timed-out CreateContainer is served the container the timed-out request created, and no other is created',
  },
  async run(t: CheckContext) {
    // No NRI plugin on the path (see IDEM-03); the delay sits in the OCI runtime's create.
    const slow = t.inject.slowRuntime();
    const { timedOut, before } = await timeOutHeldContainer(t, 'idem-07', slow, (why) =>
      // Where the proof could not tell (its test image was missing), the first attempt does.
      t.skip(`${CREATE_NOT_HELD} (${why})`),
    );
    before.add(timedOut.podId);
    // Reuse is judged only once the timed-out request's own create is seen (see IDEM-03).
    t.require(
      (await buildReachedCreate(t, slow.createdIds, before)) !== undefined,
      "the timed-out CreateContainer never reached the runtime's create before its retry (the slow runtime handler logged nothing for it), so whether the runtime serves what it created could not be tested",
    );
    await kubeletBackoff(t, timedOut.first);
    const done = await converge(
      t,
      'reused',
      `the identical CreateContainer in ${shortId(timedOut.podId)}`,
      timedOut.first,
      (p) => t.cri.retry('CreateContainer', timedOut.request, p),
    );
    const built = (await slow.createdIds()).filter((id) => !before.has(id));
    expectReused(t, built, done.value.containerId, 'containers', done.evidence, 'reused');
  },
});
