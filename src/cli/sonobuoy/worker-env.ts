/**
 * What a Sonobuoy (or plain DaemonSet) pod tells the worker through its environment: where results go,
 * where progress goes, which node this is, where the host's directories are mounted, and the `run` flags a
 * fleet sets per plugin. Pure: the environment is passed in.
 */
import { UsageError } from '../errors.js';
import { ENV_FOR_FLAG, type RunFlags } from '../resolve-config.js';

/** Sonobuoy's own default when SONOBUOY_RESULTS_DIR is unset (pkg/client/gen.go). */
export const DEFAULT_RESULTS_DIR = '/tmp/sonobuoy/results';
/** The port of the worker sidecar's progress relay when SONOBUOY_PROGRESS_PORT is unset. */
export const DEFAULT_PROGRESS_PORT = 8099;
/** Where the plugin file mounts the host's /run and /var/run (as /host/run, /host/var/run). */
export const DEFAULT_HOST_ROOT = '/host';

export interface WorkerEnv {
  resultsDir: string;
  nodeName: string;
  hostRoot: string;
}

/**
 * The `run` flags a fleet sets through plugin env, and their variable names. Flags that already have an
 * environment variable (ENV_FOR_FLAG) keep it; the rest get CRI_CONFORM_<FLAG>.
 */
export const FLEET_FLAGS = [
  'runtime-endpoint',
  'image-endpoint',
  'nri-socket',
  'require-nri',
  'nri-request-timeout',
  'level',
  'suite',
  'focus',
  'skip',
  'slow',
  'test-image',
  'pause-image',
  'pull',
  'pull-auth-file',
  'expected-deviations',
  'runtime-handler',
  'trials',
  'parallel-trials',
  'parallel',
  'timeout',
  'run-timeout',
  'call-timeout',
  'flake-attempts',
  'node-probes',
  'isolated',
  'isolated-subnet',
] as const;
export type FleetFlag = (typeof FLEET_FLAGS)[number];

const SWITCHES: ReadonlySet<FleetFlag> = new Set(['require-nri', 'slow', 'isolated']);

export function envNameFor(flag: FleetFlag): string {
  if (flag === 'suite') return 'CRI_CONFORM_SUITES';
  return ENV_FOR_FLAG[flag] ?? `CRI_CONFORM_${flag.toUpperCase().replaceAll('-', '_')}`;
}

/** Never fails: a bad value elsewhere must still end up as a failing test case in this results dir. */
export function readWorkerEnv(env: Record<string, string | undefined>, hostname: string): WorkerEnv {
  return {
    resultsDir: nonEmpty(env.SONOBUOY_RESULTS_DIR) ?? DEFAULT_RESULTS_DIR,
    nodeName: nonEmpty(env.NODE_NAME) ?? hostname,
    hostRoot: nonEmpty(env.CRI_CONFORM_HOST_ROOT) ?? DEFAULT_HOST_ROOT,
  };
}

/**
 * Plugin env as commander would have parsed the flags. A flag given on the command line wins over its
 * variable; so does anything resolveRunConfig itself reads from the environment.
 */
export function fleetFlagsFromEnv(flags: RunFlags, env: Record<string, string | undefined>): RunFlags {
  const merged: RunFlags = { ...flags };
  for (const flag of FLEET_FLAGS) {
    const key = camel(flag);
    const value = nonEmpty(env[envNameFor(flag)]);
    if (merged[key] !== undefined || value === undefined) continue;
    if (SWITCHES.has(flag)) merged[key] = switchOf(envNameFor(flag), value);
    else if (flag === 'suite') merged[key] = value.split(',').map((s) => s.trim());
    else merged[key] = value;
  }
  return merged;
}

/**
 * Where a flag's value came from once fleetFlagsFromEnv merged plugin env into the flags: the variable a
 * refusal must name, as the fleet never typed the flag.
 */
export function fleetSourceOf(
  flags: RunFlags,
  env: Record<string, string | undefined>,
): (name: string) => string | undefined {
  return (name) => {
    const flag = FLEET_FLAGS.find((f) => f === name);
    if (!flag || flags[camel(flag)] !== undefined || nonEmpty(env[envNameFor(flag)]) === undefined)
      return undefined;
    return `${envNameFor(flag)} (--${flag})`;
  };
}

/** A switch as plugin env spells it; anything else stops the worker, which a typo must not turn off. */
function switchOf(name: string, value: string): boolean {
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new UsageError(`${name} "${value}" is not a switch: set true or false`);
}

/** Undefined for 0: a plain DaemonSet has no sidecar to tell. */
export function progressPortFrom(env: Record<string, string | undefined>): number | undefined {
  const text = (env.SONOBUOY_PROGRESS_PORT ?? '').trim();
  if (text === '') return DEFAULT_PROGRESS_PORT;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) {
    throw new UsageError(
      `SONOBUOY_PROGRESS_PORT "${text}" is not a port: set a number 1-65535, or 0 for none`,
    );
  }
  return n === 0 ? undefined : n;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v;
}

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
