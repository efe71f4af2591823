/** What `run` and `doctor` do first, alike: flags, environment and config file to a RunConfig; the selection. */
import type { Check } from '../harness/check/check.js';
import { selectChecks } from '../harness/check/selection.js';
import type { RunConfig } from '../harness/core/settings.js';
import { loadDeviations } from '../harness/deviations/deviation-file.js';
import { CRICTL_CONFIG, readConfigFile } from './config-file.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';
import { type RunFlags, resolveRunConfig } from './resolve-config.js';
import { closestName } from './suggest.js';

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
  requireKnownDeviationChecks(config, ALL_CHECKS);
  const checks = selectChecks(ALL_CHECKS, config);
  if (checks.length === 0)
    throw new UsageError(
      'the selection (--suite/--level/--focus/--skip) selects no check; see `cri-conform list`',
    );
  return checks;
}

/**
 * Refuses an --expected-deviations entry for a check that does not exist: it could never match, so a
 * misspelt ID would leave the failure it was written for a FAIL without a word. Only the CLI knows the
 * catalogue (the harness sits below suites), so the check is made here, before the run reads the file again.
 */
export function requireKnownDeviationChecks(config: RunConfig, catalogue: readonly Check[]): void {
  if (config.expectedDeviations === undefined) return;
  const ids = catalogue.map((c) => c.id);
  const stray = loadDeviations(config.expectedDeviations).find((d) => !ids.includes(d.id));
  if (stray === undefined) return;
  const near = closestName(stray.id, ids);
  const prefixes = [...new Set(ids.map((id) => id.replace(/-\d+$/, '')))];
  const hint = near
    ? `did you mean ${near}?`
    : `check IDs start with ${prefixes.slice(0, -1).join(', ')} or ${prefixes.at(-1)}`;
  throw new UsageError(
    `${stray.where}: id ${stray.id} names no check; ${hint} (\`cri-conform list\` lists them all)`,
  );
}
