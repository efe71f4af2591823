#!/usr/bin/env node
// The project's test command (`npm test`): build once, run every *.test.js under dist with mocha, list why
// each skipped test skipped, and end with the plain line CI reads: "N passed, N failed, N skipped".
// Extra args are path substrings that narrow the run to matching test files. Every temporary file the tests
// make lands in one scratch folder (TMPDIR), removed when the run ends, so a run leaves nothing in /tmp;
// a run that changed a file of the working tree fails, so that a fresh clone stays clean after it.
import { createHook } from 'node:async_hooks';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Mocha from 'mocha';

const root = resolve(import.meta.dirname, '..');
execFileSync(join(root, 'node_modules/.bin/tsc'), ['-b'], { cwd: root, stdio: 'inherit' });

function testFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

const { snapshotTree, treeChanges } = await import(
  pathToFileURL(join(root, 'dist/scripts/lib/tree-changes.js')).href
);
const { pruneEmptyStateDirs } = await import(pathToFileURL(join(root, 'dist/src/cli/state-dirs.js')).href);
// Rewriting the replay sample is what CRI_CONFORM_RECORD_REPLAY_SAMPLE=1 asks for (src/cli/containerd.e2e.test.ts).
const askedToChange =
  process.env.CRI_CONFORM_RECORD_REPLAY_SAMPLE === '1' ? ['fixtures/deviation-replay/'] : [];
const treeBefore = snapshotTree(root);

const scratch = mkdtempSync(join(tmpdir(), 'cc-test-'));
process.env.TMPDIR = scratch;

/** Removes the scratch folder, unless something is still mounted in it (removing would reach through). */
function removeScratch() {
  const mounts = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .filter((m) => m === scratch || m.startsWith(`${scratch}/`));
  if (mounts.length > 0) {
    process.stdout.write(`\nleft ${scratch}: still mounted there: ${mounts.join(', ')}\n`);
    return;
  }
  rmSync(scratch, { recursive: true, force: true });
}

// Where each socket, pipe, server and worker thread was opened, so that one left open names the code that
// opened it: a bare "Socket" (a unix socket, a child's stdio pipe, a connection a server accepted) has no
// address to go by, and a worker thread that never exits keeps the process up without being listed at all.
// A connection a server accepted is opened by node itself, so it is named by where its server was opened.
const openedAt = new WeakMap(); // socket handle -> where
const serversOpenedAt = new Map(); // async id -> where
const workersOpenedAt = new Map(); // async id -> where, while the worker runs
createHook({
  init(id, type, trigger, resource) {
    const server = type === 'TCPSERVERWRAP' || type === 'PIPESERVERWRAP';
    const worker = type === 'WORKER';
    if (!server && !worker && type !== 'TCPWRAP' && type !== 'PIPEWRAP') return;
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 40;
    const where = firstOwnFrame(new Error().stack);
    Error.stackTraceLimit = limit;
    if (server) serversOpenedAt.set(id, where);
    else if (worker) workersOpenedAt.set(id, where);
    else if (where) openedAt.set(resource, `opened at ${where}`);
    else if (serversOpenedAt.has(trigger))
      openedAt.set(resource, `accepted by a server opened at ${serversOpenedAt.get(trigger)}`);
  },
  destroy(id) {
    serversOpenedAt.delete(id);
    workersOpenedAt.delete(id);
  },
}).enable();

const filter = process.argv.slice(2);
const files = testFiles(join(root, 'dist'))
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .sort();
const mocha = new Mocha({ reporter: 'spec', timeout: 60_000, slow: 5_000 });
for (const f of files) mocha.addFile(f);
await mocha.loadFilesAsync();
const runner = mocha.run();
let passed = 0;
let failed = 0;
let skipped = 0;
/** reason -> titles; tests record a reason with skipReason (src/skip-reason.test.helper.ts). */
const skipReasons = new Map();
runner.on('pass', () => passed++);
runner.on('fail', () => failed++);
runner.on('pending', (test) => {
  skipped++;
  const reason = test.skipReason ?? 'no reason recorded (skipped with it.skip or a bare this.skip())';
  const title = test.fullTitle().replace(` (skipped: ${test.skipReason})`, '');
  skipReasons.set(reason, [...(skipReasons.get(reason) ?? []), title]);
});
runner.on('end', () => {
  if (skipReasons.size > 0) process.stdout.write(`\nSkipped, and why:\n`);
  for (const [reason, titles] of skipReasons) {
    process.stdout.write(`  ${titles.length} skipped: ${reason}\n`);
    for (const t of titles) process.stdout.write(`    - ${t}\n`);
  }
  const treeAfter = treeBefore && snapshotTree(root);
  const changed = treeAfter
    ? treeChanges(treeBefore, treeAfter).filter((p) => !askedToChange.some((dir) => p.startsWith(dir)))
    : [];
  if (changed.length > 0) {
    failed++;
    process.stdout.write(
      `\nThe tests changed the working tree (a test should write to TMPDIR; a file edited by hand during the run shows here too): ${changed.join(', ')}\n`,
    );
  }
  const line = `${passed} passed, ${failed} failed, ${skipped} skipped`;
  mkdirSync(join(root, 'reports'), { recursive: true });
  writeFileSync(join(root, 'reports/test-summary.txt'), `${line}\n`);
  removeScratch();
  // Tests that drive the harness directly (not through `cri-conform run`, which prunes them) make the
  // tool's folders under /run/cri-conform as root; the empty ones go, as after a run.
  pruneEmptyStateDirs();
  process.stdout.write(`\n${line}\n`);
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
  // mocha waits for the event loop to drain; a test that leaves a socket or timer open would keep CI
  // waiting until its time limit. Name what is still open, so it can be closed where it was opened, and end.
  setTimeout(() => {
    process.stdout.write(`still open ${LINGER_MS} ms after the tests ended: ${openHandles()}\n`);
    process.exit();
  }, LINGER_MS).unref();
});

const LINGER_MS = 5_000;

function openHandles() {
  const described = process._getActiveHandles().map((h) => {
    const kind = h?.constructor?.name ?? typeof h;
    const where = h?._pipeName ?? h?.remoteAddress ?? h?.spawnfile ?? '';
    const origin = h?._handle ? openedAt.get(h._handle) : undefined;
    return [kind, where, origin].filter(Boolean).join(' ');
  });
  const workers = [...workersOpenedAt.values()].map((where) => `Worker opened at ${where}`);
  return [...described, ...workers].join(', ') || process.getActiveResourcesInfo().join(', ');
}

/** The first frame of a stack in the project's code, else the first outside node itself. */
function firstOwnFrame(stack) {
  const frames = stack
    .split('\n')
    .slice(1)
    .map((f) => f.trim().replace(/^at /, ''));
  const outsideNode = frames.filter((f) => !f.includes('node:') && !f.includes('/scripts/test.mjs'));
  return outsideNode.find((f) => !f.includes('/node_modules/')) ?? outsideNode[0];
}
