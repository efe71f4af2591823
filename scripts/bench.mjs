#!/usr/bin/env node
// Benchmarks, written as JSON (never asserted in tests): start-up time of `--help` and `list`, and per
// containerd (or other runtime) three runs: the default one, `--level all`, and hooks plus teardown at
// `--level all`. For each: the wall time, the waits the contracts require and their ratio, per-suite sums
// and the five slowest checks with where their time went (script./lib/bench-breakdown.js); each race
// check's wall time beside its floors (side by side and serial) and the strength it reached; and what the
// private instance of --isolated costs (start, image import, removal; scenario "isolated", needs root). Each run
// starts once the CPUs are under 15% busy (at most a minute's wait), so a run does not pay for the one before
// it; that and the 1-minute load average before and after each run are recorded, and the CPU time the
// machine spent during the run as the run's report has it (cpu): the floor it sets and the tool's share;
// and how long the checks that hold NRI hooks in turn took the hook lane (hookLane), a floor of its own.
// Usage: node scripts/bench.mjs [--out reports/bench.json] [--runs 10] [--env-file F]... [--only all,...]
//        [-- <extra run flags>]
// Runtimes: --env-file (repeatable), else CRI_CONFORM_E2E_ENV_FILES, else CONTAINER_RUNTIME_ENDPOINT.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { durationMs, summarize } from './lib/bench-breakdown.js';
import { ISOLATED_GOAL_MS, isolatedCost } from './lib/bench-isolated.js';
import { parseArgs, root, targets, timedRun } from './lib/bench-run.js';

const { own, runFlags, opt } = parseArgs(process.argv.slice(2));
const out = resolve(opt('--out', join(root, 'reports/bench.json')));
const runs = Number(opt('--runs', '10'));
const SCENARIOS = {
  default: [],
  all: ['--level', 'all'],
  'hooks-teardown': ['--suite', 'hooks', '--suite', 'teardown', '--level', 'all'],
};
const KNOWN = [...Object.keys(SCENARIOS), 'isolated'];
const only = opt('--only', KNOWN.join(',')).split(',');
for (const name of only) {
  if (!KNOWN.includes(name)) {
    process.stderr.write(`bench: unknown scenario ${name}; known: ${KNOWN.join(', ')}\n`);
    process.exit(2);
  }
}
const cli = join(root, 'bin/cri-conform');

execFileSync(join(root, 'node_modules/.bin/tsc'), ['-b'], { cwd: root, stdio: 'inherit' });

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function timeCommand(argv) {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const r = spawnSync(process.execPath, [cli, ...argv], { stdio: 'ignore' });
    samples.push(performance.now() - start);
    if (r.status !== 0) throw new Error(`cri-conform ${argv.join(' ')} exited ${r.status}`);
  }
  return { medianMs: Math.round(median(samples)), maxMs: Math.round(Math.max(...samples)), runs };
}

const result = {
  at: new Date().toISOString(),
  node: process.version,
  machine: { cpus: cpus().length, loadAverage: loadavg().map((l) => Number(l.toFixed(2))) },
  startup: { help: timeCommand(['--help']), list: timeCommand(['list']) },
  // Issue 35: the default run at most 0.4 of its required waits (under 75 s on an idle machine), --level
  // all under 150 s, hooks+teardown under 30 s, each with the strength unchanged.
  goals: {
    startupMs: 300,
    overheadRatio: 1.3,
    defaultOverheadRatio: 0.4,
    defaultIdleMs: 75_000,
    allMs: 150_000,
    hooksTeardownMs: 30_000,
    isolatedMs: ISOLATED_GOAL_MS,
  },
  howMeasured:
    'wall time of each `cri-conform run` from spawn to exit; required waits = the harness-declared requiredWaitMs of every check (absence and census windows, pauses, calls meant to time out, retries that spent their budget unconverged, reaping graces that ended with something left) plus hooks hung until the runtime plugin request timeout, summed over checks, so checks that overlap can bring the wall time below it; ratio = wall / required; cpu = the CPU time the whole machine spent during the run (/proc/stat) and its floor, that time spread over every core, the least wall time the same work allows here, with the share of the tool itself (the run and the commands it waited for)',
  runtimes: [],
};

const lines = [];
for (const target of targets(own)) {
  const timeoutMs = durationMs(target.env.CRI_CONFORM_NRI_REQUEST_TIMEOUT ?? '2s');
  const entry = { label: target.label, runs: {} };
  if (only.includes('isolated')) {
    entry.isolated = await isolatedCost(target.env);
    const m = entry.isolated.medianMs;
    lines.push(
      `${target.label} private instance: start ${m.start} ms, image import ${m.imageImport} ms, removal ${m.removal} ms, total ${m.total} ms (goal < ${ISOLATED_GOAL_MS} ms)`,
    );
  }
  for (const name of only.filter((n) => n in SCENARIOS)) {
    const run = await timedRun(target.env, [...SCENARIOS[name], ...runFlags]);
    const summary = summarize(run.report, run.wallMs, timeoutMs);
    entry.runtime = summary.runtime;
    entry.runs[name] = {
      flags: run.flags,
      loadAverage1m: run.loadAverage1m,
      idleBefore: run.idleBefore,
      cpu: run.report.cpu,
      hookLane: run.report.hookLane,
      reportDir: run.reportDir,
      ...summary,
    };
    lines.push(
      `${summary.runtime} ${name}: wall ${(summary.wallMs / 1000).toFixed(1)} s, required ${(summary.requiredWaitMs / 1000).toFixed(1)} s, ratio ${summary.overheadRatio} (${summary.overheadRatioWithoutUnconvergedRetries} without unconverged retries), load ${run.loadAverage1m.before}..${run.loadAverage1m.after}`,
      `  ${cpuLine(run.report.cpu)}`,
      `  ${laneLine(run.report.hookLane)}`,
    );
    for (const f of summary.floors) lines.push(`  ${floorLine(f)}`);
  }
  result.runtimes.push(entry);
}

/** "CPUs 91% busy: 305.2 CPU-seconds, floor 152.6 s on 2 cores; the tool 18.9 s" (the run's own record) */
function cpuLine(c) {
  if (!c) return 'CPUs: not measured (the runtime is not on this machine)';
  return `CPUs ${c.busyPct}% busy: ${c.busySeconds} CPU-seconds, floor ${(c.floorMs / 1000).toFixed(1)} s on ${c.cores} cores; the tool ${c.toolSeconds} s`;
}

/** "hook lane taken 19.2 s of its 19.3 s span, in 100 turns" (the run's own record) */
function laneLine(l) {
  if (!l) return 'hook lane: no check held a hook in it';
  return `hook lane taken ${(l.takenMs / 1000).toFixed(1)} s of its ${(l.spanMs / 1000).toFixed(1)} s span, in ${l.turns} turns`;
}

/** "IDEM-14 passed: 41.2 s (floor 12.0 s side by side, 48.0 s serial), 60 trials, 4 at once" */
function floorLine(f) {
  const s = (ms) => (ms === null ? '-' : `${(ms / 1000).toFixed(1)} s`);
  const trials = f.trials ? `, ${f.trials.run} trials, ${f.trials.atOnce ?? 1} at once` : '';
  return `${f.id} ${f.verdict}: ${s(f.wallMs)} (floor ${s(f.floorSideBySideMs)} side by side, ${s(f.floorSerialMs)} serial)${trials}`;
}

mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(
  `startup: help ${result.startup.help.medianMs} ms, list ${result.startup.list.medianMs} ms (median of ${runs})\n`,
);
for (const line of lines) process.stdout.write(`${line}\n`);
process.stdout.write(`wrote ${out}\n`);
