// Shared by the benchmark scripts: which runtimes to measure, and one timed `cri-conform run` against one.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'bin/cri-conform');

/** KEY="value" lines, as scripts/containerd-up.sh writes them (with or without `export`). */
export function readEnvFile(path) {
  const env = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^(?:export\s+)?([A-Z_][A-Z0-9_]*)="?(.*?)"?$/.exec(line.trim());
    if (m?.[1]) env[m[1]] = m[2] ?? '';
  }
  return env;
}

/**
 * The runtimes to measure: --env-file PATH (repeatable), else CRI_CONFORM_E2E_ENV_FILES (colon-separated),
 * else the current environment when it names an endpoint. Each target is { label, env }.
 */
export function targets(args) {
  const files = [];
  for (let i = 0; i < args.length; i++) if (args[i] === '--env-file' && args[i + 1]) files.push(args[++i]);
  if (files.length === 0 && process.env.CRI_CONFORM_E2E_ENV_FILES)
    files.push(...process.env.CRI_CONFORM_E2E_ENV_FILES.split(':').filter(Boolean));
  if (files.length > 0) return files.map((f) => ({ label: f, env: { ...process.env, ...readEnvFile(f) } }));
  return process.env.CONTAINER_RUNTIME_ENDPOINT ? [{ label: 'environment', env: process.env }] : [];
}

/** Splits `[own flags] [-- run flags]`; `opt(name, fallback)` reads one of the script's own flags. */
export function parseArgs(argv) {
  const dash = argv.indexOf('--');
  const own = dash >= 0 ? argv.slice(0, dash) : argv;
  const runFlags = dash >= 0 ? argv.slice(dash + 1) : [];
  const opt = (name, fallback) => {
    const i = own.indexOf(name);
    return i >= 0 ? own[i + 1] : fallback;
  };
  return { own, runFlags, opt };
}

const load = () => Number(loadavg()[0].toFixed(2));

const SETTLE_SAMPLE_MS = 2_000;
const SETTLE_BUSY_PCT = 15;
const SETTLE_WITHIN_MS = 60_000;

/**
 * Waits until the machine is otherwise idle before a run: the CPUs under SETTLE_BUSY_PCT busy over a
 * 2 s sample, for at most a minute. The load average lags a run that just ended by minutes, so the
 * CPU's own counters decide; what it found is recorded with the run.
 */
async function settle() {
  // The module the run measures its own CPUs with (RunOutcome.cpu); built by the time a run is due.
  const { cpuBetween, readCpuCounters } = await import(join(root, 'dist/src/harness/host/machine-cpu.js'));
  const start = performance.now();
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const before = readCpuCounters();
    Atomics.wait(pause, 0, 0, SETTLE_SAMPLE_MS);
    const after = readCpuCounters();
    const { busyPct } = cpuBetween(before, after, 0);
    const waitedMs = Math.round(performance.now() - start);
    if (busyPct < SETTLE_BUSY_PCT || waitedMs >= SETTLE_WITHIN_MS) return { busyPct, waitedMs };
  }
}

/**
 * Runs `cri-conform run <flags>` once the machine is idle (settle) and returns the JSON report, the wall
 * time, the load around it and how busy the CPUs were when it started (what they did meanwhile is the
 * report's cpu). Each
 * run's reports stay in reports/bench-runs/ (ignored by git), where the benchmark JSON points to them.
 */
export async function timedRun(env, flags) {
  const runs = join(root, 'reports/bench-runs');
  mkdirSync(runs, { recursive: true });
  const dir = mkdtempSync(join(runs, 'run-'));
  const json = join(dir, 'results.json');
  const idleBefore = await settle();
  const loadBefore = load();
  const start = performance.now();
  const r = spawnSync(process.execPath, [cli, 'run', ...flags, '--report-dir', dir, '--json', json], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const wallMs = performance.now() - start;
  if (r.status === 2 || r.status === null)
    throw new Error(`cri-conform run ${flags.join(' ')} exited ${r.status}`);
  return {
    flags: flags.join(' '),
    reportDir: dir,
    loadAverage1m: { before: loadBefore, after: load() },
    idleBefore,
    wallMs,
    report: JSON.parse(readFileSync(json, 'utf8')),
  };
}
