/**
 * IDEM-08/09: deciding that a timed-out object the kubelet will never claim is really let go. A runtime
 * may hide a held object from the CRI (PodSandboxStatus NOT_FOUND) while its pause process, shim or
 * runtime record lives on, so "gone from the CRI" is only half of it: the runtime's own records and the
 * host are asked too where host probes work. Without them the object is watched to the end of
 * --cache-ttl, so one that was only hidden and comes back live is still caught.
 */
import { type CheckContext, describeLeaks, shortId } from '../../src/harness/face.js';

/** One timed-out object, sandbox or container, as the watch sees it. */
export interface Abandoned {
  /** "the abandoned attempt's sandbox" */
  what: string;
  id: string;
  /** The state the object must leave: SANDBOX_READY, CONTAINER_RUNNING. */
  live: string;
  /** Its CRI state, or 'GONE' when the runtime no longer knows it. */
  state(): Promise<string>;
}

const EVERY_MS = 500;

/**
 * Watches `target` until it is let go (gone from the CRI and, where it can be asked, from the runtime's
 * records and the host) or merely visible and not live (which the caller removes, as the kubelet would),
 * within `withinMs`. Fails when it is still live, or gone from the CRI but still held, when that ends.
 * Returns its last CRI state.
 */
export async function watchUntilLetGo(
  t: CheckContext,
  target: Abandoned,
  withinMs: number,
  clauses: { letGo: string; notHidden: string },
): Promise<string> {
  const endAt = Date.now() + withinMs;
  const name = `${target.what} ${shortId(target.id)}`;
  let state = await target.state();
  await t
    .poll(
      async () => {
        state = await target.state();
        return state !== target.live;
      },
      { withinMs, everyMs: EVERY_MS, what: `${name} to leave ${target.live}` },
    )
    .catch(() => undefined);
  t.expect(
    state !== target.live,
    `${name} was still ${state} after ${withinMs} ms (--cache-ttl plus margin)`,
    clauses.letGo,
  );
  t.step(`${name} is ${state}`);
  if (state !== 'GONE') return state;
  if (!t.host.available) {
    const why = t.host.whyUnavailable ?? 'host probes unavailable';
    t.notRun(
      'host part',
      `whether the runtime or the host still holds ${name} was not asked (${why}); it was watched to the end of --cache-ttl for coming back ${target.live} instead`,
    );
    const stays = await t
      .holdsFor(
        async () => (await target.state()) !== target.live,
        Math.max(0, endAt - Date.now()),
        'not live',
        clauses.notHidden,
      )
      .then(
        () => true,
        () => false,
      );
    t.expect(
      stays,
      `${name} was hidden from the CRI, then came back ${target.live} before --cache-ttl ended`,
      clauses.notHidden,
    );
    return 'GONE';
  }
  let held = await t.host.stillHeld([target.id]);
  await t
    .poll(
      async () => {
        held = await t.host.stillHeld([target.id]);
        return held.length === 0;
      },
      { withinMs: Math.max(0, endAt - Date.now()), everyMs: EVERY_MS, what: `${name} to be let go` },
    )
    .catch(() => undefined);
  t.expect(
    held.length === 0,
    `${name} is gone from the CRI but still held after --cache-ttl: ${describeLeaks(held)}`,
    clauses.notHidden,
  );
  return 'GONE';
}

/** A container's state by ContainerStatus, or 'GONE' on NOT_FOUND (any other error ends the check in ERROR). */
export function containerState(t: CheckContext, containerId: string): Promise<string> {
  return t.cri.containerStateOrGone(containerId);
}
