/**
 * Counting what the runtime holds for one logical request, and saying it in a failure message. Used by the
 * idempotency and names suites: both assert "exactly one sandbox (container) with this metadata".
 */
import {
  type CheckContext,
  type ContainerListItem,
  type PodSandboxListItem,
  shortId,
} from '../../src/harness/face.js';

/** How long a census waits for a rollback that is still finishing before it counts. */
export const SETTLE_MS = 1_000;
/**
 * How long the count must then stay one. A census runs once the builds of the logical request have ended
 * (the retries come after the timed-out build, held requests are awaited first), so a duplicate that
 * shows up later is the runtime's asynchronous bookkeeping of a finished build: the same bound as the
 * hooks' quiet window for late deliveries (a quarter of the default plugin request timeout).
 */
export const CENSUS_WINDOW_MS = 500;

/** "<id1> READY, <id2> NOTREADY" */
export function describeItems(items: readonly (PodSandboxListItem | ContainerListItem)[]): string {
  if (items.length === 0) return 'none';
  return items.map((i) => `${shortId(i.id)} ${i.state.replace(/^(SANDBOX|CONTAINER)_/, '')}`).join(', ');
}

/** An error message that names a reservation ("name is reserved", "failed to reserve"), whatever its code. */
export function namesReservation(message: string): boolean {
  return /reserv/i.test(message);
}

/** The 64-hex ids a runtime message mentions (containerd and CRI-O name the holder of a reservation). */
export function idsIn(message: string): string[] {
  return [...message.matchAll(/\b[0-9a-f]{64}\b/g)].map((m) => m[0]);
}

type Listed = PodSandboxListItem | ContainerListItem;

/**
 * The census itself: waits up to SETTLE_MS for the count to be right (a rollback may still be finishing),
 * asserts it, then asserts that it stays right over CENSUS_WINDOW_MS, so a duplicate that appears late
 * fails too. `allowNone`: zero is right as well (nothing the retries could reach was built).
 */
async function census<T extends Listed>(
  t: CheckContext,
  list: () => Promise<T[]>,
  what: string,
  when: string,
  allowNone: boolean,
  clause: string,
): Promise<T[]> {
  const right = (items: readonly T[]) => items.length === 1 || (allowNone && items.length === 0);
  const wanted = allowNone ? `at most one ${what}` : `exactly one ${what}`;
  let seen = await list();
  const look = async () => {
    seen = await list();
    return right(seen);
  };
  if (!right(seen)) {
    // Out of time, one last look: a list that fails now ends the check in ERROR, not in a wrong count.
    await t.poll(look, { withinMs: SETTLE_MS, what: wanted }).catch(() => look());
  }
  t.expect(right(seen), `${seen.length} ${what} ${when}: ${describeItems(seen)}`, clause);
  const counted = seen;
  const stayed = await t.holdsFor(look, CENSUS_WINDOW_MS, wanted, clause).then(
    () => true,
    (e: unknown) => {
      if (e instanceof Error && e.name === 'AssertionError') return false;
      throw e;
    },
  );
  t.expect(
    stayed,
    `${describeItems(counted)} ${when}, but within ${CENSUS_WINDOW_MS} ms the runtime listed ${seen.length} ${what}: ${describeItems(seen)}`,
    clause,
  );
  return seen;
}

/**
 * Asserts that exactly one sandbox carries this metadata name, and that it stays one (see census), as the
 * check's `clause`.
 */
export function expectOnePod(
  t: CheckContext,
  name: string,
  when: string,
  clause: string,
): Promise<PodSandboxListItem[]> {
  return census(t, () => t.cri.listPods({ name }), `sandboxes named ${name}`, when, false, clause);
}

/** As expectOnePod, for the containers of one name in one sandbox; `allowNone` accepts zero too. */
export function expectOneContainer(
  t: CheckContext,
  podId: string,
  name: string,
  when: string,
  clause: string,
  opts: { allowNone?: boolean } = {},
): Promise<ContainerListItem[]> {
  return census(
    t,
    () => t.cri.listContainers({ podId, name }),
    `containers named ${name} in sandbox ${shortId(podId)}`,
    when,
    opts.allowNone ?? false,
    clause,
  );
}

/** A sandbox's state by PodSandboxStatus, or 'GONE' on NOT_FOUND (any other error ends the check in ERROR). */
export function podState(t: CheckContext, podSandboxId: string): Promise<string> {
  return t.cri.podStateOrGone(podSandboxId);
}
