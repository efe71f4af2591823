/**
 * Waiting until a creation delay (slow runtime handler or slow CNI) holds a request, instead of a fixed
 * pause: the slow runtime handler logs each create it is about to sleep in.
 */
import { type CheckContext, type CreationDelay, notYet } from '../../src/harness/face.js';

/**
 * Resolves once `delay` holds a request sent after `logged` creates had been logged: the slow runtime
 * handler has logged the create it is now sleeping in. The slow CNI logs nothing, so there a short pause
 * stands in for the event (shown in the timeline with its reason).
 */
export async function heldByDelay(
  t: CheckContext,
  delay: Pick<CreationDelay, 'name' | 'createdIds'>,
  logged: number,
  what: string,
): Promise<void> {
  const { createdIds } = delay;
  if (!createdIds) {
    await t.pause(200, `the ${delay.name} logs nothing: give ${what} time to reach it`);
    return;
  }
  await t.poll(
    async () => (await createdIds()).length > logged || notYet(`${logged} creates logged, none since`),
    {
      // Reaching the delay takes the runtime's setup before it, which a loaded node gives the margin.
      withinMs: t.settings.marginMs,
      what: `the ${delay.name} to log the create of ${what} (the hold being reached)`,
    },
  );
}

/** How many creates `delay` has logged so far (0 when it logs nothing). */
export async function loggedCreates(delay: Pick<CreationDelay, 'name' | 'createdIds'>): Promise<number> {
  return delay.createdIds ? (await delay.createdIds()).length : 0;
}
