/**
 * A whole run: connect, prepare, run the selected checks, sweep, and hand back the outcome. Exceptions are
 * for environment problems only; check verdicts are data.
 */
import { hostname } from 'node:os';
import { type Check, displayName } from './check.js';
import { removeLabelledUntilGone } from './cleanup.js';
import { loadBundledDeviations, loadDeviations } from './deviation-file.js';
import { applyDeviations, type DeviationSets, staleDeviations } from './deviations.js';
import { connectRuntime } from './environment.js';
import { executeCheck, identityOf } from './execute-check.js';
import { newRunId } from './labels.js';
import { assessReadiness, requireReady } from './readiness.js';
import type { CheckResult, RunOutcome, RunProperties } from './result.js';
import type { RunEnv } from './run-env.js';
import { describeLeftovers, runtimeLeftovers } from './runtime-leftovers.js';
import { runScheduled } from './scheduler.js';
import { staticSkipReason } from './selection.js';
import { checkSettingsOf, type RunConfig } from './settings.js';
import { Sequence } from './timeline.js';

export interface RunListener {
  onStart(total: number, props: RunProperties): void;
  onCheckStart(check: Check): void;
  onCheckEnd(result: CheckResult): void;
  onNote(text: string): void;
}

const SWEEP_MS = 60_000;

export async function runConformance(
  config: RunConfig,
  checks: readonly Check[],
  listener: RunListener,
  signal: AbortSignal,
  toolVersion: string,
  hooks: Pick<RunEnv, 'beforeCall'> = {},
): Promise<RunOutcome> {
  const started = performance.now();
  const deviations: DeviationSets = {
    expected: config.expectedDeviations ? loadDeviations(config.expectedDeviations) : [],
    bundled: loadBundledDeviations(),
  };
  const client = await connectRuntime(config);
  try {
    const readiness = await assessReadiness(client, config, checks, 'run');
    requireReady(readiness);
    const { nri, host, availability } = readiness;
    const runtime = { name: client.version.runtimeName, version: client.version.runtimeVersion };
    const runId = newRunId();
    const env: RunEnv = {
      runId,
      client,
      sequence: new Sequence(),
      settings: checkSettingsOf(config),
      injectors: config,
      nri: nri.socketPath
        ? { socketPath: nri.socketPath }
        : { unavailable: nri.unavailable ?? 'NRI unavailable' },
      host,
      ...(config.restartCmd
        ? { restart: { command: config.restartCmd, timeoutMs: config.restartTimeoutMs } }
        : {}),
      signal,
      ...hooks,
    };
    const properties: RunProperties = {
      runId,
      toolVersion,
      runtimeName: runtime.name,
      runtimeVersion: runtime.version,
      criApiVersion: client.version.runtimeApiVersion,
      nriVersion: nri.version ?? 'absent',
      endpoint: config.runtimeEndpoint,
      startedAt: new Date().toISOString(),
      flags: config.flagsText,
      node: hostname(),
    };
    listener.onStart(checks.length, properties);

    let stop: string | undefined;
    signal.addEventListener('abort', () => {
      stop ??= signal.reason instanceof Error ? signal.reason.message : 'interrupted';
    });
    const results = await runScheduled(checks, config.parallel, {
      stopReason: () => stop,
      notRun: (check, why) => skipped(check, `not run: ${why}`),
      run: async (check) => {
        listener.onCheckStart(check);
        const why = staticSkipReason(check, availability);
        const result = why ? skipped(check, why) : await runWithFlakeAttempts(env, check, config);
        const final = applyDeviations(result, deviations, runtime);
        listener.onCheckEnd(final);
        if (config.failFast && (final.verdict === 'failed' || final.verdict === 'error')) {
          stop ??= `--fail-fast after ${check.id} ${final.verdict}`;
        }
        return final;
      },
    });

    const sweep = await removeLabelledUntilGone(client, { runId }, SWEEP_MS);
    if (sweep.pods.length + sweep.containers.length > 0) {
      listener.onNote(
        `final sweep removed ${sweep.pods.length} pods and ${sweep.containers.length} containers`,
      );
    }
    for (const p of sweep.problems) listener.onNote(`final sweep: ${p}`);
    const leftovers = await runtimeLeftovers(config.runtimeEndpoint, runId);
    if (leftovers.length > 0) listener.onNote(describeLeftovers(config.runtimeEndpoint, leftovers));
    const stale = staleDeviations(deviations.expected, results, runtime);
    for (const s of stale) listener.onNote(`warning: stale expected deviation ${s}`);
    return {
      properties,
      results,
      durationMs: Math.round(performance.now() - started),
      ...(stop ? { interrupted: stop } : {}),
      ...(stale.length > 0 ? { staleDeviations: stale } : {}),
    };
  } finally {
    client.close();
  }
}

async function runWithFlakeAttempts(env: RunEnv, check: Check, config: RunConfig): Promise<CheckResult> {
  let result = await executeCheck(env, check, config.checkTimeoutMs);
  // Trial checks already repeat their race; re-running them until one passes would hide a violation.
  for (
    let attempt = 1;
    attempt <= config.flakeAttempts && !check.trials && result.verdict === 'failed';
    attempt++
  ) {
    const first = result.message ?? '';
    result = await executeCheck(env, check, config.checkTimeoutMs);
    result.observations.flake = `attempt ${attempt + 1}; earlier failure: ${first}`;
  }
  return result;
}

function skipped(check: Check, message: string): CheckResult {
  return {
    ...identityOf(check),
    verdict: 'skipped',
    durationMs: 0,
    message,
    observations: {},
    timeline: [{ kind: 'note', seq: 0, atMs: 0, text: `${displayName(check)}: ${message}` }],
  };
}
