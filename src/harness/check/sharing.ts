/**
 * Which checks may share the runtime at once. Checks of one group run side by side, CRI-only checks run
 * beside any group but 'alone' and the hook lane (whose holds would stall their pods' hooks too), and a
 * check of the group 'alone' runs with nothing beside it.
 *
 * - alone: checks that hold, hang or delay an NRI hook. Runtimes deliver hooks one at a time across all
 *   pods, so such a check stalls every pod's hooks while it does: a concurrent check would see its calls
 *   answered late, and its absence windows could hold only because what must be absent was held back.
 *   Restarts (exclusive) change every pod. A check that uses both NRI and an injector runs alone too, for
 *   the reason below, and so does one that loads the runtime enough to slow every call beside it
 *   (CheckSpec.loadsRuntime).
 * - hook-lane: checks that stall hooks only inside the run's hook lane (need 'holds-in-lane'; hook-lane.ts).
 *   Their holds take turns, as the trials of one check do, so they share the runtime with each other, and
 *   with the injector checks that say why a held hook changes nothing they assert (besideHeldHooks, or
 *   restsBesideHeldHooks while they rest from their injectors).
 * - injectors: checks that hold creations with the delay injectors. Each check claims the injectors'
 *   settings for its own pods only (injectors.ts), and finds its pods by its labels.
 * - cri-only: checks with neither plugins nor injectors. Their calls are only as slow as the runtime, so
 *   they hold back no registration, and their pod removals pass the registration gate like any other.
 * - nri: checks whose plugins only watch hooks or fail them at once. Each has its own plugins, which see
 *   every pod's events but act on the check's own. They do not share with injector checks: on containerd
 *   2.x a plugin's registration waits for every lifecycle call in flight and holds back every new one until
 *   the plugin is synchronized, so a creation held for seconds would hold a registration past its timeout,
 *   and the registration would hold back other checks' calls. And a registration while another check
 *   removes a pod deadlocks containerd 2.1, which the registration gate (registration-gate.ts) prevents.
 */
import type { FaultAction } from '../../nri/types.js';
import { isInjectorNeed } from '../core/injector-needs.js';
import type { Check } from './check.js';

type FaultKind = FaultAction['kind'];

export type SharingGroup = 'alone' | 'hook-lane' | 'injectors' | 'cri-only' | 'nri';

export function sharingGroup(c: Pick<Check, 'needs'> & Partial<Pick<Check, 'loadsRuntime'>>): SharingGroup {
  const nri = c.needs.includes('nri');
  const injectors = c.needs.some(isInjectorNeed);
  if (c.needs.includes('holds-in-lane') && !c.needs.includes('exclusive') && !injectors) return 'hook-lane';
  if (stallsOrIsExclusive(c) || (nri && injectors) || c.loadsRuntime) return 'alone';
  if (nri) return 'nri';
  return injectors ? 'injectors' : 'cri-only';
}

/**
 * Whether these two checks may run at once: their groups may share, or one is of the hook lane and the
 * other says why its held hooks do not disturb it (besideHeldHooks, laneWelcomes).
 */
export function mayShareChecks(a: SharingSpec, b: SharingSpec): boolean {
  const [ga, gb] = [sharingGroup(a), sharingGroup(b)];
  if (mayShare(ga, gb)) return true;
  return laneWelcomes(a, ga, b, gb) || laneWelcomes(b, gb, a, ga);
}

/**
 * Whether `other` may run beside `lane`, a check of the hook lane. It must say why held hooks change
 * nothing it asserts (CheckSpec.besideHeldHooks). An injector check may then, unless the lane's check keeps
 * injector checks away for the load of their held creations (CheckSpec.apartFromInjectorChecks). One that
 * says so while it counts as CRI-only (an injector check resting from its injectors, as resting-checks.ts
 * counts it) holds no creation and makes next to no pods, so every lane check welcomes it.
 */
function laneWelcomes(lane: SharingSpec, laneGroup: SharingGroup, other: SharingSpec, group: SharingGroup) {
  if (laneGroup !== 'hook-lane' || other.besideHeldHooks === '') return false;
  return group === 'cri-only' || (group === 'injectors' && !lane.apartFromInjectorChecks);
}

type SharingSpec = Pick<Check, 'needs' | 'besideHeldHooks'> &
  Partial<Pick<Check, 'apartFromInjectorChecks' | 'loadsRuntime'>>;

/** Whether checks of these two groups may run at once. */
export function mayShare(a: SharingGroup, b: SharingGroup): boolean {
  if (a === 'alone' || b === 'alone') return false;
  if (a === 'hook-lane' || b === 'hook-lane') return a === b;
  return a === b || a === 'cri-only' || b === 'cri-only';
}

function stallsOrIsExclusive(c: Pick<Check, 'needs'>): boolean {
  return c.needs.some((n) => n === 'exclusive' || n === 'stalls-hooks');
}

/** Fault kinds that keep the runtime's hook delivery waiting on this plugin. */
const STALLING: readonly FaultKind[] = ['hang', 'delay'];

/**
 * Why the check may not arm this fault, or undefined when it may. A check that stalls hooks without
 * declaring it would stall checks that run beside it, so the harness refuses rather than trust the label.
 */
export function undeclaredStall(
  c: Pick<Check, 'id' | 'needs'>,
  kind: FaultKind,
  inLane: boolean,
): string | undefined {
  if (!STALLING.includes(kind)) return undefined;
  const group = sharingGroup(c);
  if (group === 'alone') return undefined;
  if (group === 'hook-lane')
    return inLane
      ? undefined
      : `${c.id} arms a '${kind}' fault outside t.oneAtATime, but declares needs: ['holds-in-lane'] (it would stall the checks beside it)`;
  return `${c.id} arms a '${kind}' fault, which stalls every pod's NRI hooks, but does not declare needs: ['stalls-hooks'] (it would run beside other checks)`;
}
