// Shared by the benchmark scripts: which runtimes to measure, and one timed `cri-conform run` against one.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
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

/**
 * The CPU time spent so far, busy and in all, from /proc/stat's first line (jiffies): user to steal, the
 * first eight fields; guest time is counted in user already.
 */
function cpuTimes() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = fields.slice(0, 8).map(Number);
  const idle = (n[3] ?? 0) + (n[4] ?? 0);
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** Ticks per second of /proc's CPU counters (USER_HZ). */
const USER_HZ = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/**
 * CPU ticks of this process's reaped children so far (/proc/self/stat cutime + cstime): the `cri-conform
 * run` it spawned and every command that run waited for. A shim the runtime started is the runtime's.
 */
function reapedChildrenTicks() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[13]) + Number(fields[14]);
}

/**
 * What the machine's CPUs did during a run: busy seconds against all the cores had, the tool's share, and
 * the CPU floor: the wall time the same work would take with every core busy throughout. A run whose wall
 * time is near that floor is bound by work (mostly the runtime's), not by the waits its contracts require.
 */
function cpuDuring(before, after, toolTicks) {
  const seconds = (ticks) => Number((ticks / USER_HZ).toFixed(1));
  const busy = after.busy - before.busy;
  const cores = cpus().length;
  return {
    cores,
    busyS: seconds(busy),
    capacityS: seconds(after.total - before.total),
    busyPct: Math.round((100 * busy) / Math.max(1, after.total - before.total)),
    floorMs: Math.round(((busy / USER_HZ) * 1000) / cores),
    toolS: seconds(toolTicks),
  };
}

const SETTLE_SAMPLE_MS = 2_000;
const SETTLE_BUSY_PCT = 15;
const SETTLE_WITHIN_MS = 60_000;

/**
 * Waits until the machine is otherwise idle before a run: the CPUs under SETTLE_BUSY_PCT busy over a
 * 2 s sample, for at most a minute. The load average lags a run that just ended by minutes, so the
 * CPU's own counters decide; what it found is recorded with the run.
 */
function settle() {
  const start = performance.now();
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const before = cpuTimes();
    Atomics.wait(pause, 0, 0, SETTLE_SAMPLE_MS);
    const after = cpuTimes();
    const busyPct = Math.round((100 * (after.busy - before.busy)) / Math.max(1, after.total - before.total));
    const waitedMs = Math.round(performance.now() - start);
    if (busyPct < SETTLE_BUSY_PCT || waitedMs >= SETTLE_WITHIN_MS) return { busyPct, waitedMs };
  }
}

/**
 * Runs `cri-conform run <flags>` once the machine is idle (settle) and returns the JSON report, the wall
 * time, the load around it, how busy the CPUs were when it started and what they did meanwhile. Each
 * run's reports stay in reports/bench-runs/ (ignored by git), where the benchmark JSON points to them.
 */
export function timedRun(env, flags) {
  const runs = join(root, 'reports/bench-runs');
  mkdirSync(runs, { recursive: true });
  const dir = mkdtempSync(join(runs, 'run-'));
  const json = join(dir, 'results.json');
  const idleBefore = settle();
  const loadBefore = load();
  const cpuBefore = cpuTimes();
  const toolBefore = reapedChildrenTicks();
  const start = performance.now();
  const r = spawnSync(process.execPath, [cli, 'run', ...flags, '--report-dir', dir, '--json', json], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const wallMs = performance.now() - start;
  const cpu = cpuDuring(cpuBefore, cpuTimes(), reapedChildrenTicks() - toolBefore);
  if (r.status === 2 || r.status === null)
    throw new Error(`cri-conform run ${flags.join(' ')} exited ${r.status}`);
  return {
    flags: flags.join(' '),
    reportDir: dir,
    loadAverage1m: { before: loadBefore, after: load() },
    idleBefore,
    wallMs,
    cpu,
    report: JSON.parse(readFileSync(json, 'utf8')),
  };
}
