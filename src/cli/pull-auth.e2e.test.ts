/**
 * End to end against real containerd: the test image sits in a registry that wants credentials, as on a
 * node whose kubelet gets them from a credential provider or a pod's imagePullSecret. A run without them
 * stops before anything starts and says how to pass them; with --pull-auth-file the runtime logs in with
 * them, and a check runs its containers from the pulled image.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { describeSkipped } from '../skip-reason.test.helper.js';
import { labelledLeft, NO_RUNTIME_REASON, runCli, runtimesUnderTest } from './e2e-env.test.helper.js';
import { type FakeRegistry, startFakeRegistry } from './fake-registry.test.helper.js';

const [USER, PASSWORD] = ['cc-robot', 'cc-pull-secret-7f3a'];

if (runtimesUnderTest().length === 0)
  describeSkipped('pulls from a registry that wants credentials', NO_RUNTIME_REASON);
for (const runtime of runtimesUnderTest()) {
  describe(`pulls from a registry that wants credentials, on ${runtime.name}`, function () {
    this.timeout(5 * 60_000);
    const endpoint = runtime.env.CONTAINER_RUNTIME_ENDPOINT ?? '';
    let dir: string;
    let registry: FakeRegistry;
    let authFile: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'cc-pull-auth-'));
      registry = await startFakeRegistry(dir, USER, PASSWORD);
      authFile = join(dir, 'config.json');
      const auth = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
      writeFileSync(authFile, JSON.stringify({ auths: { [registry.host]: { auth } } }));
    });
    after(async () => {
      // The pulled image is the test's, not the node's: it goes again.
      const socket = endpoint.replace(/^unix:\/\//, '');
      execFileSync('ctr', ['-a', socket, '-n', 'k8s.io', 'images', 'rm', registry.image], {
        stdio: 'ignore',
      });
      await registry.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const run = (...extra: string[]) =>
      runCli(
        [
          'run',
          '--focus',
          'TEAR-09',
          '--test-image',
          registry.image,
          '--report-dir',
          join(dir, 'reports'),
          ...extra,
        ],
        runtime.env,
      );

    it('without credentials: exit 2 before anything starts, one line saying to pass --pull-auth-file', async () => {
      const refused = await run();
      expect(refused.code, refused.stderr).to.equal(2);
      const lines = refused.stderr.trim().split('\n');
      expect(lines, refused.stderr).to.have.length(1);
      expect(lines[0]).to.match(/^cri-conform: image \S+ \(--test-image\): cannot pull it: /);
      expect(lines[0]).to.include(
        `; if ${registry.host} needs credentials, pass them with --pull-auth-file <docker config JSON>`,
      );
      expect(
        registry.requests.some((r) => r.user !== ''),
        'no request logged in',
      ).to.equal(false);
    });

    it("with --pull-auth-file: the runtime logs in with the file's credentials, and the check runs from the image", async () => {
      const done = await run('--pull-auth-file', authFile);
      expect(done.code, done.stdout + done.stderr).to.equal(0);
      expect(done.stderr).to.include(
        `image ${registry.image} (--test-image) pulled with the credentials of ${registry.host} (--pull-auth-file)`,
      );
      expect(done.stdout).to.match(/PASS\s+TEAR-09/);
      // The manifest at least: blobs the node holds already under another name are not fetched again.
      const fetched = registry.requests.filter((r) => r.user === USER && r.path.includes('/manifests/'));
      expect(fetched, 'the manifest, fetched logged in').to.not.be.empty;
      const reports = ['results.json', 'junit.xml'].map((f) => readFileSync(join(dir, 'reports', f), 'utf8'));
      for (const text of [...reports, done.stdout, done.stderr]) {
        expect(text).to.not.include(PASSWORD);
        expect(text).to.not.include(Buffer.from(`${USER}:${PASSWORD}`).toString('base64'));
      }
      expect(await labelledLeft(endpoint)).to.deep.equal({ pods: [], containers: [] });
    });
  });
}
