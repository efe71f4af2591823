/**
 * A kubelet-like retry that its own deadline cut off may have been a build of its own: the timed-out
 * attempt had given the name back, so the runtime started again, and on a loaded node that took longer
 * than the retry's deadline. What that second abandoned build leaves is told apart from what the first
 * left, so a leftover names the attempt it came from (run-local on a loaded VM: retry #1 on the network
 * setup path timed out after 3.8 s, and the cgroup left was its build's, not the first attempt's).
 */
import { type RetryAttempt, reservationHolders, shortId } from '../../src/harness/face.js';

const CUT_OFF = new Set(['DEADLINE_EXCEEDED', 'CANCELLED']);

/**
 * The builds of retries that timed out, by id: the first id a refusal names after a retry was cut off,
 * when no refusal named it before that retry (an id named before is the first attempt's build, which the
 * cut-off retry only waited behind). Empty where the runtime's refusals name no id.
 */
export function buildsOfCutOffRetries(attempts: readonly RetryAttempt[]): Map<string, number> {
  const named = new Set<string>();
  const builds = new Map<string, number>();
  let cutOff: number | undefined;
  for (const attempt of attempts) {
    const [id] = reservationHolders(attempt.message);
    if (id !== undefined) {
      if (cutOff !== undefined && !named.has(id)) builds.set(id, cutOff);
      named.add(id);
      cutOff = undefined;
    }
    if (CUT_OFF.has(attempt.code)) cutOff = attempt.attempt;
  }
  return builds;
}

/**
 * "; <id> was the build of retry #n, which timed out in turn" for each such build of these retries that
 * `text` names ('' when none does): appended to a trial's leftovers, or to what the runtime lists under a
 * name the retries could not reserve, so the failure says which attempt made it.
 */
export function retryBuildsNamedIn(text: string, retries: readonly RetryAttempt[]): string {
  return [...buildsOfCutOffRetries(retries)]
    .filter(([id]) => text.includes(shortId(id)))
    .map(([id, retry]) => `; ${shortId(id)} was the build of retry #${retry}, which timed out in turn`)
    .join('');
}
