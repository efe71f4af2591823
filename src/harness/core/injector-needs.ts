/**
 * Which delay injector a check needs, and whether the configuration offers it. One place for the rule and
 * the reason text: the pre-run skip decision, `doctor`'s forecast and the check's own t.inject all ask here.
 */

export interface InjectorConfig {
  slowRuntimeHandler?: string;
  slowRuntimeDir?: string;
  slowCniDir?: string;
  /** Set once the run's injector proof saw the OCI create come at StartContainer (CREATE_NOT_HELD). */
  createNotHeld?: string;
}

/**
 * `slow-runtime`: the runc wrapper handler (delay and created.log); `slow-cni`: the CNI wrapper;
 * `creation-delay`: either one, the handler when both are set.
 */
export type InjectorNeed = 'slow-runtime' | 'slow-cni' | 'creation-delay';
export const INJECTOR_NEEDS: readonly InjectorNeed[] = ['slow-runtime', 'slow-cni', 'creation-delay'];

/** The injectors a check may take only where the run offers them (CheckSpec.uses, t.inject.offers). */
export type OfferedInjector = 'slow-runtime' | 'slow-cni';

/** The two injectors a need can be met by. */
export type InjectorKind = 'runtime' | 'cni';

const WHY_MISSING: Record<InjectorNeed, string> = {
  'slow-runtime':
    'needs a slow runtime handler: pass --slow-runtime-handler NAME --slow-runtime-dir DIR (scripts/containerd-up.sh sets up "conform-slow"; see README "Injectors")',
  'slow-cni':
    'needs a slow CNI wrapper: pass --slow-cni-dir DIR (scripts/containerd-up.sh sets one up; see README "Injectors")',
  'creation-delay':
    'needs a creation delay outside NRI: pass --slow-runtime-handler/--slow-runtime-dir or --slow-cni-dir (see README "Injectors")',
};

/**
 * Why nothing outside NRI can hold CreateContainer on a runtime that runs the OCI create at StartContainer:
 * the skip reason of `held-create` checks, whether the injector proof found it before the run or the
 * check found its CreateContainer unheld.
 */
export const CREATE_NOT_HELD =
  'this runtime creates the OCI container at StartContainer, not in CreateContainer, so nothing outside NRI can hold CreateContainer';

/** The injector that meets `need` with this configuration, or why none does. */
export function injectorFor(
  need: InjectorNeed,
  config: InjectorConfig,
): { kind: InjectorKind } | { missing: string } {
  const runtime = Boolean(config.slowRuntimeHandler && config.slowRuntimeDir);
  const cni = Boolean(config.slowCniDir);
  if ((need === 'slow-runtime' || need === 'creation-delay') && runtime) return { kind: 'runtime' };
  if ((need === 'slow-cni' || need === 'creation-delay') && cni) return { kind: 'cni' };
  return { missing: WHY_MISSING[need] };
}

/** Why each need cannot be met here; needs that can be met are absent. */
export function missingInjectors(config: InjectorConfig): Partial<Record<InjectorNeed, string>> {
  const missing: Partial<Record<InjectorNeed, string>> = {};
  for (const need of INJECTOR_NEEDS) {
    const found = injectorFor(need, config);
    if ('missing' in found) missing[need] = found.missing;
  }
  return missing;
}

export function isInjectorNeed(need: string): need is InjectorNeed {
  return (INJECTOR_NEEDS as readonly string[]).includes(need);
}
