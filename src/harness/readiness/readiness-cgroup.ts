/**
 * Readiness of the pods' cgroup placement: which driver the runtime uses, how that was learnt, and the
 * parent every pod of the run gets. A parent the driver cannot take, or handlers on different drivers,
 * stop the run before its first pod: every pod would fail in runc, which would read as the runtime's fault.
 */
import type { CriClient } from '../../cri/client.js';
import { describeCgroup } from '../check/result.js';
import type { RunConfig } from '../core/settings.js';
import { learnCgroupDriver } from '../host/cgroup-driver.js';
import { type CgroupPlacement, placePods } from '../host/cgroup-parent.js';
import { ok, warn } from './readiness-probes.js';
import type { Finding } from './readiness-types.js';

export async function cgroupReadiness(
  client: CriClient,
  config: Pick<RunConfig, 'runtimeHandler' | 'slowRuntimeHandler' | 'cgroupParent'>,
): Promise<{ placement: CgroupPlacement; finding: Finding }> {
  const handlers = [config.runtimeHandler, ...(config.slowRuntimeHandler ? [config.slowRuntimeHandler] : [])];
  const decision = placePods(await learnCgroupDriver(client, handlers), config.cgroupParent);
  const what = describeCgroup(decision.placement);
  if (decision.problem)
    return {
      placement: decision.placement,
      finding: {
        severity: 'fatal',
        what: 'the pods cannot be placed in a cgroup',
        fix: decision.problem,
        blocksAll: true,
      },
    };
  return {
    placement: decision.placement,
    finding: decision.warning ? warn(what, decision.warning) : ok(what),
  };
}
