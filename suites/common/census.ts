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

/**
 * Asserts that exactly one sandbox carries this metadata name, giving a rollback that is still under way
 * SETTLE_MS to finish. Returns the sandboxes seen.
 */
export async function expectOnePod(
  t: CheckContext,
  name: string,
  when: string,
): Promise<PodSandboxListItem[]> {
  let seen: PodSandboxListItem[] = [];
  await t
    .poll(
      async () => {
        seen = await t.cri.listPods({ name });
        return seen.length === 1;
      },
      { withinMs: SETTLE_MS, what: `exactly one sandbox named ${name}` },
    )
    .catch(() => undefined);
  t.expect(seen.length === 1, `${seen.length} sandboxes named ${name} ${when}: ${describeItems(seen)}`);
  return seen;
}

/** As expectOnePod, for the containers of one name in one sandbox. */
export async function expectOneContainer(
  t: CheckContext,
  podId: string,
  name: string,
  when: string,
): Promise<ContainerListItem[]> {
  let seen: ContainerListItem[] = [];
  await t
    .poll(
      async () => {
        seen = await t.cri.listContainers({ podId, name });
        return seen.length === 1;
      },
      { withinMs: SETTLE_MS, what: `exactly one container named ${name} in ${shortId(podId)}` },
    )
    .catch(() => undefined);
  t.expect(
    seen.length === 1,
    `${seen.length} containers named ${name} in sandbox ${shortId(podId)} ${when}: ${describeItems(seen)}`,
  );
  return seen;
}

/** A sandbox's state by PodSandboxStatus, or 'GONE' when the runtime no longer knows it. */
export async function podState(t: CheckContext, podSandboxId: string): Promise<string> {
  const reply = await t.cri.tryCall('PodSandboxStatus', { podSandboxId, verbose: false });
  return reply.ok && reply.value.status ? reply.value.status.state : 'GONE';
}
