/**
 * The sandbox and container variants of the checks that wait out --cache-ttl (IDEM-08, IDEM-09): each
 * starts with a request timed out on the slow runtime handler, then goes on with what it built.
 */
import type { CheckContext, SlowRuntime } from '../../src/harness/face.js';
import type { Variant } from '../common/variants.js';
import {
  type TimedOutContainer,
  timeOutContainerOnSlowHandler,
  variantNotRun,
} from './container-scenarios.js';
import type { TimedOutPod } from './scenarios.js';
import { timeOutOnSlowHandler } from './slow-handler.js';

/**
 * Why IDEM-08 and IDEM-09, once they rest (every build they held has ended), may run beside the checks
 * whose holds take turns in the hook lane (CheckSpec.restsBesideHeldHooks).
 */
export const RESTS_BESIDE_HELD_HOOKS =
  'resting, it arms no delay: what it sends then (the next request, kubelet-like retries, the stop and removal of what was abandoned) waits at most one hold behind a held hook, far inside its deadline and budget';

export type BuiltPod = TimedOutPod & { builtId: string };
export type BuiltContainer = TimedOutContainer & { builtId: string };

export const sandboxVariant =
  (t: CheckContext, name: string, rest: (timedOut: BuiltPod) => Promise<void>): Variant =>
  async () => {
    const timedOut = await timeOutOnSlowHandler(t, name);
    return () => rest(timedOut);
  };

/** None to go on with where the runtime cannot hold a CreateContainer (variantNotRun says why). */
export const containerVariantOnSlowHandler =
  (
    t: CheckContext,
    name: string,
    slow: SlowRuntime,
    rest: (timedOut: BuiltContainer) => Promise<void>,
  ): Variant =>
  async () => {
    const timedOut = await timeOutContainerOnSlowHandler(t, name, slow);
    if ('notRun' in timedOut) {
      variantNotRun(t, timedOut.notRun);
      return undefined;
    }
    return () => rest(timedOut);
  };
