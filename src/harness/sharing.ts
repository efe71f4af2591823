/**
 * Which checks may share the runtime at once. Runtimes deliver NRI hooks one at a time across all pods, so
 * a check that holds, hangs or delays a hook stalls every pod's hooks while it does: a concurrent check
 * would see its calls answered late, and its absence windows could hold only because what must be absent
 * was held back. Global injectors (the slow runtime handler's and slow CNI's delay files; a check
 * declares each one it uses) and restarts change every pod. Such checks run alone. Every other check,
 * CRI-only or with plugins that only watch or fail hooks at once, is isolated by its labels and its own
 * plugins, so it shares the runtime with others.
 */
import type { FaultAction } from '../nri/types.js';
import type { Check } from './check.js';
import { isInjectorNeed } from './injector-needs.js';

type FaultKind = FaultAction['kind'];

/**
 * NRI checks that only watch hooks could share by the rule above, but sharing lets one check register a
 * plugin while another removes a pod, and that deadlocks containerd 2.1: RemovePodSandbox holds the NRI
 * plugin-sync read lock and takes it again in the RemoveContainer it calls for each container, and a
 * registration arriving in between queues for the write side, which blocks the nested read. Every later
 * lifecycle call then hangs until containerd restarts. Checks must not cause that by how they are
 * scheduled, so every NRI check runs alone.
 */
const NRI_CHECKS_SHARE = false;

export function runsAlone(c: Pick<Check, 'needs'>): boolean {
  return declaresAlone(c) || (!NRI_CHECKS_SHARE && c.needs.includes('nri'));
}

/** The check's needs say it must run alone, whatever the scheduler does with other NRI checks. */
function declaresAlone(c: Pick<Check, 'needs'>): boolean {
  return c.needs.some((n) => n === 'exclusive' || n === 'stalls-hooks' || isInjectorNeed(n));
}

/** Fault kinds that keep the runtime's hook delivery waiting on this plugin. */
const STALLING: readonly FaultKind[] = ['hang', 'delay'];

/**
 * Why the check may not arm this fault, or undefined when it may. A check that stalls hooks without
 * declaring it would stall checks that run beside it, so the harness refuses rather than trust the label.
 */
export function undeclaredStall(c: Pick<Check, 'id' | 'needs'>, kind: FaultKind): string | undefined {
  if (!STALLING.includes(kind) || declaresAlone(c)) return undefined;
  return `${c.id} arms a '${kind}' fault, which stalls every pod's NRI hooks, but does not declare needs: ['stalls-hooks'] (it would run beside other checks)`;
}
