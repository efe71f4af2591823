#!/usr/bin/env node
// Benchmarks, written as JSON (never asserted in tests): start-up time of `--help` and `list`, and, when a
// runtime is configured (CONTAINER_RUNTIME_ENDPOINT etc., e.g. from scripts/containerd-up.sh), per-check
// durations of a run with the share spent in waits the contracts require.
// Usage: node scripts/bench.mjs [--out reports/bench.json] [--runs 10] [-- <extra run flags>]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const dash = args.indexOf('--');
const runFlags = dash >= 0 ? args.slice(dash + 1) : [];
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i < (dash >= 0 ? dash : args.length) ? args[i + 1] : fallback;
};
const out = resolve(opt('--out', join(root, 'reports/bench.json')));
const runs = Number(opt('--runs', '10'));
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
  startup: { help: timeCommand(['--help']), list: timeCommand(['list']) },
  goals: { startupMs: 300, overheadRatio: 1.3 },
};

if (process.env.CONTAINER_RUNTIME_ENDPOINT) {
  const dir = mkdtempSync(join(tmpdir(), 'cc-bench-'));
  const json = join(dir, 'results.json');
  const start = performance.now();
  spawnSync(
    process.execPath,
    [cli, 'run', '--level', 'all', '--report-dir', dir, '--json', json, ...runFlags],
    { stdio: 'inherit' },
  );
  const wallMs = Math.round(performance.now() - start);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  const checks = report.results.map((r) => ({
    id: r.id,
    verdict: r.verdict,
    durationMs: r.durationMs,
    requiredWaitMs: r.requiredWaitMs ?? 0,
    requiredShare: r.durationMs > 0 ? Number(((r.requiredWaitMs ?? 0) / r.durationMs).toFixed(2)) : 0,
  }));
  const required = checks.reduce((s, c) => s + c.requiredWaitMs, 0);
  result.run = {
    runtime: `${report.properties.runtimeName} ${report.properties.runtimeVersion}`,
    reportDir: dir,
    flags: ['--level', 'all', ...runFlags].join(' '),
    wallMs,
    sumOfDurationsMs: checks.reduce((s, c) => s + c.durationMs, 0),
    requiredWaitMs: required,
    overheadRatio: required > 0 ? Number((wallMs / required).toFixed(2)) : null,
    checks,
  };
}

mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(
  `${JSON.stringify({ help: result.startup.help, list: result.startup.list, run: result.run && { wallMs: result.run.wallMs, overheadRatio: result.run.overheadRatio } })}\n`,
);
process.stdout.write(`wrote ${out}\n`);
