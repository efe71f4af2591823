import { randomUUID } from 'node:crypto';
import { type CheckContext, defineCheck, type PodSandboxConfig, shortId } from '../../src/harness/face.js';
import { heldByDelay, loggedCreates } from '../common/creation-delay.js';
import { describeReply } from '../common/replies.js';
import { DELAY_MS } from '../common/timing.js';
import type { IdReply } from './reservation.js';

/** The same pod name with other key fields, on the host network and default handler: no injector slows it. */
function variant(config: PodSandboxConfig, change: { attempt?: number; uid?: string }): PodSandboxConfig {
  const uid = change.uid ?? config.metadata.uid;
  const namespaces = config.linux?.securityContext?.namespaceOptions;
  return {
    ...config,
    metadata: { ...config.metadata, uid, attempt: change.attempt ?? config.metadata.attempt },
    labels: { ...config.labels, 'io.kubernetes.pod.uid': uid },
    hostname: '',
    linux: { ...config.linux, securityContext: { namespaceOptions: { ...namespaces, network: 'NODE' } } },
  };
}

export const check = defineCheck({
  id: 'NAME-04',
  level: 'MUST',
  needs: ['creation-delay'],
  title:
    'A RunPodSandbox with another attempt or uid is not blocked by the reservation of an in-flight request',
  contract:
    'cri-api v0.32.3 api.proto PodSandboxMetadata: attempt and uid are part of the sandbox identity; containerd CRI reserves name_namespace_uid_attempt; kubelet sends attempt+1 when it gives up on a sandbox that is still being built',
  clauses: {
    'not-blocked':
      'a RunPodSandbox with another attempt or uid succeeds while an in-flight request holds the reservation, and the in-flight one still completes',
  },
  async run(t: CheckContext) {
    // Held outside NRI: runtimes deliver NRI hooks one at a time across all pods, so a hook hold would
    // delay the other requests too and say nothing about reservations.
    const delay = t.inject.creationDelay();
    const config = t.make.pod('name-04');
    // "Blocked" is read from the order of the answers, so the hold must outlast a whole unheld sandbox
    // creation on a loaded node: the delay plus the margin a loaded node is given anywhere else.
    const holdMs = DELAY_MS + t.settings.marginMs;
    await delay.setDelay(holdMs);
    const logged = await loggedCreates(delay);
    t.step(`RunPodSandbox ${config.metadata.name} attempt 0, held ${holdMs} ms by the ${delay.name}`);
    let heldDoneAt = Number.POSITIVE_INFINITY;
    const held = t.cri
      .tryRunPod(config, { runtimeHandler: delay.runtimeHandler, deadlineMs: holdMs + t.settings.marginMs })
      .then((r) => {
        heldDoneAt = performance.now();
        return r;
      });
    // Once the delay holds the request, its reservation is taken.
    await heldByDelay(t, delay, logged, 'the held RunPodSandbox');
    const others: [string, PodSandboxConfig][] = [
      [`attempt ${config.metadata.attempt + 1}`, variant(config, { attempt: config.metadata.attempt + 1 })],
      ['another uid', variant(config, { uid: randomUUID() })],
    ];
    t.step('the same name with another attempt, and with another uid, while the first is held');
    const replies = await Promise.all(
      others.map(async ([what, other]): Promise<[string, IdReply, number]> => {
        const reply = await t.cri.tryRunPod(other);
        return [what, reply, performance.now()];
      }),
    );
    const first = await held;
    await delay.setDelay(0);
    // The held request is a valid request too: another attempt arriving must not make it fail.
    const heldFailed = first.ok ? [] : [`the held attempt-0 request itself failed: ${describeReply(first)}`];
    const problems = heldFailed.concat(
      replies.flatMap(([what, reply, at]) => {
        if (!reply.ok) return [`${what}: ${describeReply(reply)}`];
        if (first.ok && reply.value === first.value)
          return [`${what}: answered with the held sandbox ${shortId(first.value)}`];
        return at > heldDoneAt
          ? [`${what}: waited until the held request finished (${describeReply(reply)})`]
          : [];
      }),
    );
    t.expect(
      problems.length === 0,
      `while attempt 0 of ${config.metadata.name} was in flight: ${problems.join('; ')} (held request: ${describeReply(first)})`,
      'not-blocked',
    );
  },
});
