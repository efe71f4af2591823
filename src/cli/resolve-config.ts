/**
 * Turns flags, environment and config file into a RunConfig. Pure: everything it reads is passed in,
 * so the precedence (flag > env > config file > default) is tested as a table.
 */

import { dirname } from 'node:path';
import {
  DEFAULT_PARALLEL_TRIALS,
  DEFAULT_TRIALS,
  type LevelFilter,
  type PullPolicy,
  type RunConfig,
} from '../harness/core/settings.js';
import { SUITES, type SuiteName } from '../harness/core/vocabulary.js';
import { cgroupParentSyntaxProblem } from '../harness/host/cgroup-parent.js';
import { subnetProblem } from '../instance/network.js';
import type { ConfigValues } from './config-file.js';
import { type CountFlag, parseCount, parseDurationMs, SHORTEST_NRI_REQUEST_MS } from './durations.js';
import { UsageError } from './errors.js';

export const DEFAULT_ENDPOINT = 'unix:///run/containerd/containerd.sock';
export const DEFAULT_NRI_SOCKET = '/var/run/nri/nri.sock';
export const DEFAULT_TEST_IMAGE = 'localhost/cri-conform/busybox:1';
export const DEFAULT_PAUSE_IMAGE = 'localhost/cri-conform/pause:1';

/** Commander's view of the run flags: strings as typed, booleans for switches. */
export type RunFlags = Partial<Record<string, string | boolean | string[]>>;

/** Which environment variable stands for which flag. */
export const ENV_FOR_FLAG: Record<string, string> = {
  'runtime-endpoint': 'CONTAINER_RUNTIME_ENDPOINT',
  'image-endpoint': 'IMAGE_SERVICE_ENDPOINT',
  'nri-socket': 'CRI_CONFORM_NRI_SOCKET',
  'nri-request-timeout': 'CRI_CONFORM_NRI_REQUEST_TIMEOUT',
  'test-image': 'CRI_CONFORM_TEST_IMAGE',
  'pause-image': 'CRI_CONFORM_PAUSE_IMAGE',
  'slow-runtime-handler': 'CRI_CONFORM_SLOW_RUNTIME_HANDLER',
  'slow-runtime-dir': 'CRI_CONFORM_SLOW_RUNTIME_DIR',
  'slow-cni-dir': 'CRI_CONFORM_SLOW_CNI_DIR',
  'restart-cmd': 'CRI_CONFORM_RESTART_CMD',
  'pull-auth-file': 'CRI_CONFORM_PULL_AUTH_FILE',
};

export function resolveRunConfig(
  flags: RunFlags,
  env: Record<string, string | undefined>,
  file: ConfigValues,
  /** Who gave a flag's value where the caller knows better than the flags (a worker's plugin env). */
  givenBy: (name: string) => string | undefined = () => undefined,
): RunConfig {
  const pick = (name: string): string | undefined => {
    const flag = flags[camel(name)];
    if (typeof flag === 'string') return flag;
    const envName = ENV_FOR_FLAG[name];
    const fromEnv = envName ? env[envName] : undefined;
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    const fromFile = file[name];
    return typeof fromFile === 'string' ? fromFile : undefined;
  };
  // Who gave a value, for the message that refuses it: a user who never typed --trials looks for it elsewhere.
  const from = (name: string): string => {
    const given = givenBy(name);
    if (given) return given;
    if (typeof flags[camel(name)] === 'string') return `--${name}`;
    const envName = ENV_FOR_FLAG[name];
    if (envName && env[envName]) return `${envName} (--${name})`;
    return typeof file[name] === 'string' ? `config key ${name} (--${name})` : `--${name}`;
  };
  const bool = (name: string): boolean =>
    flags[camel(name)] === true || file[name] === true || file[name] === 'true';
  const duration = (name: string, fallback: string, minMs?: number) =>
    parseDurationMs(pick(name) ?? fallback, from(name), minMs);
  const count = (name: CountFlag, fallback: string) => parseCount(pick(name) ?? fallback, from(name), name);

  const runtimeEndpoint = normaliseEndpoint(
    pick('runtime-endpoint') ?? DEFAULT_ENDPOINT,
    from('runtime-endpoint'),
  );
  const imageEndpoint = normaliseEndpoint(pick('image-endpoint') ?? runtimeEndpoint, from('image-endpoint'));
  const optional = (name: string, key = camel(name)) => {
    const v = pick(name);
    return v === undefined || v === '' ? {} : { [key]: v };
  };

  return {
    runtimeEndpoint,
    imageEndpoint,
    // crictl.yaml's `timeout` is its per-call timeout; our --timeout is per check (design.md).
    callTimeoutMs: parseDurationMs(
      pick('call-timeout') ?? fileString(file, 'timeout') ?? '30s',
      '--call-timeout',
    ),
    nriSocket: pick('nri-socket') ?? DEFAULT_NRI_SOCKET,
    requireNri: bool('require-nri'),
    nriRequestTimeoutMs: duration('nri-request-timeout', '2s', SHORTEST_NRI_REQUEST_MS),
    ...(pick('nri-request-timeout') !== undefined ? { nriRequestTimeoutGiven: true } : {}),
    runtimeHandler: pick('runtime-handler') ?? '',
    ...optional('slow-runtime-handler'),
    ...optional('slow-runtime-dir'),
    ...optional('slow-cni-dir'),
    ...optional('restart-cmd'),
    ...optional('junit', 'junitFile'),
    ...optional('json', 'jsonFile'),
    ...optional('expected-deviations'),
    ...(bool('strict-deviations') ? { strictDeviations: true } : {}),
    ...(bool('isolated') ? { isolated: true } : {}),
    ...subnet(pick('isolated-subnet'), bool('isolated')),
    testImage: pick('test-image') ?? DEFAULT_TEST_IMAGE,
    pauseImage: pick('pause-image') ?? DEFAULT_PAUSE_IMAGE,
    ...(pick('pause-image') === undefined ? {} : { pauseImageNamed: true }),
    pull: oneOf<PullPolicy>(pick('pull') ?? 'missing', ['never', 'missing', 'always'], from('pull')),
    ...optional('pull-auth-file'),
    restartTimeoutMs: duration('restart-timeout', '60s'),
    cacheTtlMs: duration('cache-ttl', '150s'),
    trials: count('trials', String(DEFAULT_TRIALS)),
    parallelTrials: count('parallel-trials', String(DEFAULT_PARALLEL_TRIALS)),
    parallel: count('parallel', '4'),
    checkTimeoutMs: parseDurationMs(
      typeof flags.timeout === 'string' ? flags.timeout : (fileString(file, 'check-timeout') ?? '5m'),
      '--timeout',
    ),
    ...runTimeout(pick('run-timeout'), from('run-timeout')),
    failFast: bool('fail-fast'),
    ...(bool('beside-kubelet') ? { besideKubelet: true } : {}),
    ...cgroupParentOf(pick('cgroup-parent')),
    flakeAttempts: count('flake-attempts', '0'),
    ...regex('focus', pick('focus')),
    ...regex('skip', pick('skip')),
    suites: suitesOf(flags.suite ?? file.suite),
    level: oneOf<LevelFilter>(pick('level') ?? 'must', ['must', 'should', 'all'], from('level')),
    slow: bool('slow'),
    nodeProbes: oneOf(pick('node-probes') ?? 'auto', ['auto', 'on', 'off'] as const, from('node-probes')),
    reportDir: pick('report-dir') ?? besideNamedReport([pick('junit'), pick('json'), flags.html]),
    reportPrefix: pick('report-prefix') ?? '',
    flagsText: describeFlags(flags),
  };
}

/** --run-timeout: none unless given; a zero is not "none", which leaving the flag out already says. */
function runTimeout(text: string | undefined, from: string): { runTimeoutMs?: number } {
  if (text === undefined || text === '') return {};
  if (/^0+(\.0+)?(ms|s|m|h)?$/.test(text.trim()))
    throw new UsageError(`${from}: "${text}" would end the run at once; leave it out for no limit`);
  return { runTimeoutMs: parseDurationMs(text, from) };
}

/** --cgroup-parent as given, refused (exit 2) when no cgroup driver could take it; its driver is checked later. */
function cgroupParentOf(value: string | undefined): { cgroupParent?: string } {
  if (value === undefined) return {};
  const problem = cgroupParentSyntaxProblem(value);
  if (problem) throw new UsageError(problem);
  return { cgroupParent: value };
}

/** --isolated-subnet, checked here so that a typo stops the run before anything is looked up. */
function subnet(text: string | undefined, isolated: boolean): { isolatedSubnet?: string } {
  if (text === undefined || text === '') return {};
  if (!isolated)
    throw new UsageError(`--isolated-subnet ${text} is the private copy's bridge: it needs --isolated`);
  const problem = subnetProblem(text);
  if (problem) throw new UsageError(problem);
  return { isolatedSubnet: text };
}

/**
 * Without --report-dir, the reports nobody named go beside the first one named (--junit, --json, --html),
 * so `--junit out/a.xml` never leaves results.json in ./reports; with none named, in reports/.
 */
function besideNamedReport(named: readonly (string | boolean | string[] | undefined)[]): string {
  const first = named.find((f): f is string => typeof f === 'string' && f !== '');
  return first ? dirname(first) : 'reports';
}

/** Only the selection flags, for `list`, which needs no runtime. */
export function resolveSelection(flags: RunFlags) {
  const text = (k: string) => (typeof flags[k] === 'string' ? (flags[k] as string) : undefined);
  return {
    suites: suitesOf(flags.suite),
    level: oneOf<LevelFilter>(text('level') ?? 'must', ['must', 'should', 'all'], '--level'),
    ...regex('focus', text('focus')),
    ...regex('skip', text('skip')),
  };
}

/** `unix:///path` and a bare `/path` both mean a unix socket; grpc-js wants the URL form. */
export function normaliseEndpoint(value: string, flag: string): string {
  if (value.startsWith('unix://')) return value;
  if (value.startsWith('/')) return `unix://${value}`;
  if (/^(tcp|dns|ipv4|ipv6):/.test(value)) return value;
  throw new UsageError(
    `${flag}: "${value}" is not an endpoint; use unix:///path/to/socket or /path/to/socket`,
  );
}

function fileString(file: ConfigValues, key: string): string | undefined {
  const v = file[key];
  return typeof v === 'string' ? v : undefined;
}

function regex(name: 'focus' | 'skip', value: string | undefined): { focus?: RegExp; skip?: RegExp } {
  if (value === undefined) return {};
  if (value === '') throw new UsageError(`--${name} "" would match every check; leave it out instead`);
  try {
    return { [name]: new RegExp(value) };
  } catch (e) {
    throw new UsageError(`--${name}: ${(e as Error).message}`);
  }
}

function suitesOf(value: string | boolean | string[] | undefined): SuiteName[] {
  if (value === undefined || typeof value === 'boolean') return [];
  const names = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).filter(Boolean);
  for (const n of names) {
    if (!SUITES.includes(n as SuiteName))
      throw new UsageError(`--suite: unknown suite "${n}"; choose from ${SUITES.join(', ')}`);
  }
  return names as SuiteName[];
}

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!allowed.includes(value as T))
    throw new UsageError(`${flag}: "${value}" is not one of ${allowed.join(', ')}`);
  return value as T;
}

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function describeFlags(flags: RunFlags): string {
  return Object.entries(flags)
    .filter(([, v]) => v !== undefined)
    .map(
      ([k, v]) =>
        `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}${v === true ? '' : `=${String(v)}`}`,
    )
    .join(' ');
}
