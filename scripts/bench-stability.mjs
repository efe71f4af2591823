#!/usr/bin/env node
// Stability benchmark (never a timed test): N consecutive `--level all` runs on each runtime must give the
// same verdicts. Prints every check whose verdict flipped, with the verdicts run by run, and writes JSON.
// Usage: node scripts/bench-stability.mjs [--repeat 3] [--out reports/bench-stability.json]
//        [--env-file F]... [-- <extra run flags>]
// Runtimes: --env-file (repeatable), else CRI_CONFORM_E2E_ENV_FILES, else CONTAINER_RUNTIME_ENDPOINT.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs, root, targets, timedRun } from './lib/bench-run.js';

const { own, runFlags, opt } = parseArgs(process.argv.slice(2));
const repeat = Number(opt('--repeat', '3'));
const out = resolve(opt('--out', join(root, 'reports/bench-stability.json')));
const list = targets(own);
if (!Number.isInteger(repeat) || repeat < 2 || list.length === 0) {
  process.stderr.write(
    'bench-stability: needs --repeat >= 2 and a runtime (--env-file, CRI_CONFORM_E2E_ENV_FILES or CONTAINER_RUNTIME_ENDPOINT)\n',
  );
  process.exit(2);
}

execFileSync(join(root, 'node_modules/.bin/tsc'), ['-b'], { cwd: root, stdio: 'inherit' });

const result = { at: new Date().toISOString(), repeat, flags: ['--level', 'all', ...runFlags], runtimes: [] };
let flipped = 0;
for (const target of list) {
  const runs = [];
  let runtime = '';
  for (let i = 0; i < repeat; i++) {
    const run = await timedRun(target.env, ['--level', 'all', ...runFlags]);
    runtime = `${run.report.properties.runtimeName} ${run.report.properties.runtimeVersion}`;
    runs.push({
      wallMs: Math.round(run.wallMs),
      loadAverage1m: run.loadAverage1m,
      reportDir: run.reportDir,
      verdicts: Object.fromEntries(run.report.results.map((r) => [r.id, r.verdict])),
      messages: Object.fromEntries(run.report.results.map((r) => [r.id, r.message ?? ''])),
    });
    process.stderr.write(
      `${target.label}: run ${i + 1} of ${repeat} in ${(run.wallMs / 1000).toFixed(1)} s\n`,
    );
  }
  const ids = Object.keys(runs[0]?.verdicts ?? {});
  const flips = ids
    .filter((id) => new Set(runs.map((r) => r.verdicts[id])).size > 1)
    .map((id) => ({
      id,
      verdicts: runs.map((r) => r.verdicts[id]),
      messages: runs.map((r) => r.messages[id].slice(0, 300)),
    }));
  flipped += flips.length;
  result.runtimes.push({ label: target.label, runtime, runs, flips });
  process.stdout.write(
    `${runtime} (${target.label}): ${flips.length} of ${ids.length} checks flipped over ${repeat} runs\n`,
  );
  for (const f of flips) {
    process.stdout.write(`  ${f.id}: ${f.verdicts.join(' -> ')}\n`);
    for (const [i, m] of f.messages.entries()) if (m) process.stdout.write(`    run ${i + 1}: ${m}\n`);
  }
}

mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`${flipped} flips; wrote ${out}\n`);
