/**
 * Records the failure messages of runs on runtimes CI cannot provision (a release built by hand, CRI-O)
 * into fixtures/deviation-replay/<runtime>.json, as the real-containerd e2e test does for its own runs
 * (CRI_CONFORM_RECORD_REPLAY_SAMPLE=1): each results.json replaces the messages of the checks that failed
 * in it, for its runtime and minor version, and leaves the rest. Commit the sample with the entries it
 * supports (README "A known deviation ends nothing").
 *   node dist/scripts/record-replay-sample.js RESULTS.json...
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  readSample,
  recordRun,
  samplePath,
  writeSample,
} from '../src/harness/deviations/deviation-replay.js';
import { parseResults } from '../src/report/read-results.js';

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: node dist/scripts/record-replay-sample.js RESULTS.json...\n');
  process.exitCode = 2;
}
const root = resolve(import.meta.dirname, '../..');
for (const file of files) {
  const outcome = parseResults(JSON.parse(readFileSync(file, 'utf8')), file);
  const { runtimeName, runtimeVersion, startedAt } = outcome.properties;
  const path = samplePath(root, runtimeName);
  const run = { runtime: runtimeName, version: runtimeVersion, at: startedAt };
  writeSample(path, recordRun(readSample(path), run, outcome.results));
  process.stdout.write(`${file}: ${runtimeName} ${runtimeVersion} into ${path}\n`);
}
