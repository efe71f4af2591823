// What the private instance of `--isolated` costs a run: starting it (finding the node's daemon, its config
// dump, the derived config, the daemon up and answering), importing the bundled images, and removing it
// with everything it made. Measured through the same module the CLI uses (dist/src/instance), a few times.
import { join } from 'node:path';
import { root } from './bench-run.js';

export const ISOLATED_GOAL_MS = 5_000;

export async function isolatedCost(env, samples = 3) {
  const { startPrivateInstance } = await import(join(root, 'dist/src/instance/index.js'));
  const runs = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    const instance = await startPrivateInstance({
      endpoint: env.CONTAINER_RUNTIME_ENDPOINT,
      testImage: env.CRI_CONFORM_TEST_IMAGE ?? 'localhost/cri-conform/busybox:1',
      pauseImage: env.CRI_CONFORM_PAUSE_IMAGE ?? 'localhost/cri-conform/pause:1',
      pull: 'missing',
      signal: new AbortController().signal,
    });
    const removing = performance.now();
    const leftovers = await instance.remove();
    const done = performance.now();
    runs.push({
      startMs: instance.record.timingsMs.start,
      imageImportMs: instance.record.timingsMs.imageImport,
      removalMs: Math.round(done - removing),
      totalMs: Math.round(done - started),
      leftovers,
    });
  }
  const median = (key) => runs.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  return {
    goalMs: ISOLATED_GOAL_MS,
    medianMs: {
      start: median('startMs'),
      imageImport: median('imageImportMs'),
      removal: median('removalMs'),
      total: median('totalMs'),
    },
    runs,
  };
}
