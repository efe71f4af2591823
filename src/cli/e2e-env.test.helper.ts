/**
 * Real-runtime test support: which throwaway containerds to test (CRI_CONFORM_E2E_ENV_FILES, written by
 * scripts/containerd-up.sh), their environments, and what of cri-conform is left on them.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_CHECKS } from '../../suites/index.js';
import { CriClient } from '../cri/client.js';
import type { RunOutcome } from '../harness/check/result.js';
import { selectChecks } from '../harness/check/selection.js';
import { RUN_LABEL } from '../harness/core/labels.js';
import { runConformance } from '../harness/run/run.js';
import type { RunEnv } from '../harness/run/run-env.js';
import { type RunFlags, resolveRunConfig } from './resolve-config.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const CLI = join(ROOT, 'bin/cri-conform');

export interface RuntimeUnderTest {
  name: string;
  env: Record<string, string>;
}

/** Why the real-runtime tests skip when none is provisioned, and how to provision one. */
export const NO_RUNTIME_REASON =
  'no real containerd: CRI_CONFORM_E2E_ENV_FILES is empty; keep one up with `bash scripts/run-local.sh --keep` ' +
  'and pass the env file it prints: CRI_CONFORM_E2E_ENV_FILES=<file> npm test';

/** The runtimes to test. On CI they must be there; elsewhere the tests skip when none is provisioned. */
export function runtimesUnderTest(): RuntimeUnderTest[] {
  const files = (process.env.CRI_CONFORM_E2E_ENV_FILES ?? '').split(':').filter(Boolean);
  if (files.length === 0 && process.env.CI === 'true') {
    throw new Error(
      'CI=true but CRI_CONFORM_E2E_ENV_FILES is empty: .ci/run must provision containerd 1.7 and 2.1',
    );
  }
  return files.map((file) => ({ name: file.split('/').at(-2) ?? file, env: readEnvFile(file) }));
}

export function readEnvFile(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^(?:export )?([A-Z0-9_]+)="(.*)"$/.exec(line.trim());
    if (m?.[1] !== undefined && m[2] !== undefined) env[m[1]] = m[2];
  }
  return env;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a child process, as a user would; `onStdout` sees output as it arrives. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  opts: { onSpawn?: (kill: (signal: NodeJS.Signals) => void) => void } = {},
): Promise<CliRun> {
  return runCollecting(process.execPath, [CLI, ...args], { ...process.env, ...env, NO_COLOR: '1' }, opts);
}

/** Runs a command in the checkout with exactly this environment, collecting its output. */
export function runCollecting(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { onSpawn?: (kill: (signal: NodeJS.Signals) => void) => void } = {},
): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { env, cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => resolvePromise({ code, stdout, stderr }));
    opts.onSpawn?.((signal) => child.kill(signal));
  });
}

/** Pods and containers of any cri-conform run still on the runtime. */
export async function labelledLeft(endpoint: string): Promise<{ pods: string[]; containers: string[] }> {
  const client = await CriClient.connect({ runtimeEndpoint: endpoint });
  try {
    const { items } = await client.call('ListPodSandbox', { filter: null });
    const { containers } = await client.call('ListContainers', { filter: null });
    return {
      pods: items
        .filter((p) => p.labels[RUN_LABEL] !== undefined)
        .map((p) => `${p.metadata.name} ${p.state}`),
      containers: containers
        .filter((c) => c.labels[RUN_LABEL] !== undefined)
        .map((c) => `${c.metadata.name} ${c.state}`),
    };
  } finally {
    client.close();
  }
}

/** Until a labelled pod whose name starts with `namePrefix` exists (`cc-tear-04-`: that check's own). */
export async function untilLabelledPod(
  endpoint: string,
  withinMs: number,
  namePrefix = 'cc-',
): Promise<void> {
  const deadline = Date.now() + withinMs;
  const seen = async () => (await labelledLeft(endpoint)).pods.some((p) => p.startsWith(namePrefix));
  while (!(await seen()) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A run in this process, quiet, with `beforeCall` before every CRI call a check makes: how a test plays
 * something on the real runtime at a chosen step of a check.
 */
export function runInProcess(
  flags: RunFlags,
  env: Record<string, string>,
  beforeCall: NonNullable<RunEnv['beforeCall']>,
): Promise<RunOutcome> {
  const config = resolveRunConfig(flags, env, {});
  const quiet = { onStart() {}, onCheckStart() {}, onCheckEnd() {}, onNote() {} };
  const signal = new AbortController().signal;
  return runConformance(config, selectChecks(ALL_CHECKS, config), quiet, signal, 'test', { beforeCall });
}
