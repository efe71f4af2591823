#!/usr/bin/env node
// How long `cri-conform doctor` takes, written as JSON (never asserted in tests): per runtime, the wall time
// of whole doctor runs (process start to exit, injector proof pod included) and the proof's own latencies.
// Runtimes: the env files in CRI_CONFORM_E2E_ENV_FILES (colon-separated, as scripts/containerd-up.sh writes
// them), or the current environment when that is empty.
// Usage: node scripts/bench-doctor.mjs [--out reports/bench-doctor.json] [--runs 5] [-- <extra doctor flags>]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const { values, positionals: extra } = parseArgs({
  options: { out: { type: 'string' }, runs: { type: 'string' } },
  allowPositionals: true,
});
const out = resolve(values.out ?? join(root, 'reports/bench-doctor.json'));
const runs = Number(values.runs ?? '5');
const cli = join(root, 'bin/cri-conform');

execFileSync(join(root, 'node_modules/.bin/tsc'), ['-b'], { cwd: root, stdio: 'inherit' });

function readEnvFile(path) {
  const env = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^(?:export )?([A-Z0-9_]+)="(.*)"$/.exec(line.trim());
    if (m) env[m[1]] = m[2];
  }
  return env;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const summary = (values) => ({
  medianMs: Math.round(median(values)),
  maxMs: Math.round(Math.max(...values)),
});

function benchDoctor(name, env) {
  const wall = [];
  const podMs = [];
  const containerMs = [];
  let runtime = '';
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const r = spawnSync(process.execPath, [cli, 'doctor', '--level', 'all', ...extra], {
      env: { ...process.env, ...env, NO_COLOR: '1' },
      encoding: 'utf8',
    });
    wall.push(performance.now() - start);
    if (r.status !== 0) throw new Error(`doctor against ${name} exited ${r.status}:\n${r.stdout}${r.stderr}`);
    runtime ||= /^ok {3}CRI: (.*) \(CRI/m.exec(r.stdout)?.[1] ?? '';
    const pod = /RunPodSandbox took (\d+) ms/.exec(r.stdout);
    const ctr = /CreateContainer \+ StartContainer took (\d+) ms/.exec(r.stdout);
    if (pod) podMs.push(Number(pod[1]));
    if (ctr) containerMs.push(Number(ctr[1]));
  }
  return {
    name,
    runtime,
    runs,
    wall: summary(wall),
    ...(podMs.length ? { proofRunPodSandbox: summary(podMs) } : {}),
    ...(containerMs.length ? { proofCreateStartContainer: summary(containerMs) } : {}),
  };
}

const files = (process.env.CRI_CONFORM_E2E_ENV_FILES ?? '').split(':').filter(Boolean);
const targets = files.length
  ? files.map((f) => [f.split('/').at(-2) ?? f, readEnvFile(f)])
  : [['environment', {}]];
const result = {
  at: new Date().toISOString(),
  node: process.version,
  flags: ['--level', 'all', ...extra].join(' '),
  runtimes: targets.map(([name, env]) => benchDoctor(name, env)),
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(result.runtimes)}\nwrote ${out}\n`);
