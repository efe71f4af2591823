#!/usr/bin/env node
// Run after `npm install` changes package-lock.json. The npm registry reachable from these machines lacks
// most of @biomejs/biome's per-platform binaries, so npm leaves them out of the lock, and `npm ci` then
// rejects the lock as out of sync. This adds the missing optional entries with their os/cpu, which npm
// skips on other platforms without fetching anything.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const path = join(import.meta.dirname, '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(path, 'utf8'));
const biome = lock.packages['node_modules/@biomejs/biome'];
const platforms = {
  'win32-x64': ['win32', 'x64'],
  'win32-arm64': ['win32', 'arm64'],
  'darwin-x64': ['darwin', 'x64'],
  'darwin-arm64': ['darwin', 'arm64'],
  'linux-x64': ['linux', 'x64'],
  'linux-arm64': ['linux', 'arm64'],
  'linux-x64-musl': ['linux', 'x64', 'musl'],
  'linux-arm64-musl': ['linux', 'arm64', 'musl'],
  'android-x64': ['android', 'x64'],
  'android-arm64': ['android', 'arm64'],
};
let added = 0;
for (const [name, [os, cpu, libc]] of Object.entries(platforms)) {
  const key = `node_modules/@biomejs/cli-${name}`;
  if (lock.packages[key]) continue;
  lock.packages[key] = {
    version: biome.version,
    cpu: [cpu],
    dev: true,
    license: 'MIT OR Apache-2.0',
    optional: true,
    os: [os],
    ...(libc ? { libc: [libc] } : {}),
    engines: { node: '>=14.21.3' },
  };
  added++;
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`lock-platforms: added ${added} optional @biomejs/cli-* entries\n`);
