/** What `run` and `doctor` do first, alike: flags, environment and config file to a RunConfig; the selection. */
import type { Check } from '../harness/check/check.js';
import { selectChecks } from '../harness/check/selection.js';
import type { RunConfig } from '../harness/core/settings.js';
import { CRICTL_CONFIG, readConfigFile } from './config-file.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';
import { type RunFlags, resolveRunConfig } from './resolve-config.js';

export function configFromFlags(flags: RunFlags & { config?: string }, io: Pick<Io, 'env'>): RunConfig {
  const { config: configPath, ...rest } = flags;
  return resolveRunConfig(
    rest,
    io.env,
    readConfigFile(configPath ?? CRICTL_CONFIG, configPath !== undefined),
  );
}

/** The checks the flags select; a selection of nothing is bad usage, never a silent pass. */
export async function selectedChecks(config: RunConfig): Promise<Check[]> {
  const { ALL_CHECKS } = await import('../../suites/index.js');
  const checks = selectChecks(ALL_CHECKS, config);
  if (checks.length === 0)
    throw new UsageError(
      'the selection (--suite/--level/--focus/--skip) selects no check; see `cri-conform list`',
    );
  return checks;
}
