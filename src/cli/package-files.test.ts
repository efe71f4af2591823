import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** What `npm pack` would put in the tarball. Scripts are skipped: prepack would rebuild dist under us. */
function packedFiles(): string[] {
  const json = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [pack] = JSON.parse(json) as { files: { path: string }[] }[];
  return (pack?.files ?? []).map((f) => f.path);
}

/** prepack empties dist before it builds, so compiled files of a moved or deleted source never ship. */
function stillBuilt(path: string): boolean {
  const m = /^dist\/(.+)\.js(\.map)?$/.exec(path);
  return !m || existsSync(join(root, `${m[1]}.ts`));
}

const DEVELOPMENT_ONLY: readonly RegExp[] = [
  /\.test\./, // tests and their .test.helper.* helpers
  /^dist\/fixtures\//, // the reference runtime, its mutations and the NRI runtime side
  /^fixtures\/reference\//,
  /^fixtures\/nri-runtime-side\//,
  /^src\/.*\.ts$/, // sources: the package runs dist
  /^scripts\/(test|bench|lock-platforms)\.mjs$/,
  /^scripts\/(run-local|install-deps)\.sh$/, // build from a checkout (npx tsc) or provision a dev machine
  /^\.ci\//,
  /\.tsbuildinfo$/,
];

const REQUIRED: readonly string[] = [
  'LICENSE',
  'README.md',
  'package.json',
  'bin/cri-conform',
  'dist/src/cli/main.js',
  'dist/suites/index.js',
  'src/cri/proto/cri.proto',
  'fixtures/expected-deviations/containerd.yaml',
  'scripts/build-images.sh',
  'scripts/lib/oci-layout.sh',
  'fixtures/images/pause.sh',
  'scripts/lib/runc-slow.sh',
  'scripts/lib/cni-slow.sh',
  'docs/checks.md',
];

describe('the npm package', function () {
  this.timeout(60_000);
  let files: string[] = [];
  before(() => {
    files = packedFiles().filter(stillBuilt);
  });

  it('ships no test-only or development-only file', () => {
    const offending = files.filter((f) => DEVELOPMENT_ONLY.some((re) => re.test(f)));
    expect(offending).to.deep.equal([]);
  });

  it('ships the licence, the bundled deviations file and everything the README tells a node user to run', () => {
    const missing = REQUIRED.filter((f) => !files.includes(f));
    expect(missing).to.deep.equal([]);
  });

  it('ships the NRI protos the plugin loads at run time', () => {
    expect(files.filter((f) => f.startsWith('src/nri/proto/') && f.endsWith('.proto'))).to.not.be.empty;
  });
});
