/**
 * End to end: `--isolated` against a private copy of each real containerd (CI's 1.7 and 2.1 stand in for
 * the node's runtime). An injector check and a [Restart] check reach verdicts on the copy, the report
 * records the binary, and afterwards the host holds nothing of the copy; the copy of a run killed with its
 * supervisor is removed by `cleanup --isolated`, whichever path names the runtime's socket.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { pidsWithArgs } from '../instance/processes.js';
import { readTextOrEmpty } from '../instance/read-text.js';
import { describeSkipped } from '../skip-reason.test.helper.js';
import { labelledLeft, NO_RUNTIME_REASON, runCli, runtimesUnderTest } from './e2e-env.test.helper.js';
import {
  hostTraces,
  instanceNames,
  NODE_ONLY_IMAGES,
  newInstanceDir,
  tagNodeOnlyImages,
  untilCopyHasPod,
} from './instance-traces.test.helper.js';

interface Report {
  properties: {
    isolated: {
      dir: string;
      binary: { sha256: string };
      network: { bridge: string };
      images: string;
      changed: Array<{ key: string; why: string }>;
      leftovers: string[];
    } | null;
  };
  results: Array<{ id: string; verdict: string; message: string | null }>;
}

if (runtimesUnderTest().length === 0) describeSkipped('cri-conform --isolated', NO_RUNTIME_REASON);
for (const runtime of runtimesUnderTest()) {
  describe(`cri-conform --isolated on a private copy of ${runtime.name}`, function () {
    this.timeout(5 * 60_000);
    const endpoint = runtime.env.CONTAINER_RUNTIME_ENDPOINT ?? '';
    const reportDir = mkdtempSync(join(tmpdir(), 'cc-e2e-isolated-'));
    after(() => rmSync(reportDir, { recursive: true, force: true }));

    it('runs an injector check and a [Restart] check on the copy, records its binary, and leaves nothing on the host', async () => {
      const run = await runCli(
        ['run', '--isolated', '--focus', '^(IDEM-03|IDEM-13|HOOK-01) ', '--report-dir', reportDir],
        runtime.env,
      );
      expect(run.code, run.stdout + run.stderr).to.be.oneOf([0, 1]);
      const report = JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as Report;
      const verdicts = report.results.map((r) => `${r.id} ${r.verdict}`);
      expect(
        verdicts.filter((v) => / (error|skipped)$/.test(v)),
        JSON.stringify(report.results),
      ).to.deep.equal([]);
      const isolated = report.properties.isolated;
      expect(isolated?.binary.sha256).to.match(/^[0-9a-f]{64}$/);
      expect(isolated?.leftovers).to.deep.equal([]);
      expect(hostTraces(isolated?.dir ?? '', isolated?.network.bridge ?? '')).to.deep.equal([]);
      expect(await labelledLeft(endpoint), "objects on the node's own runtime").to.deep.equal({
        pods: [],
        containers: [],
      });
    });

    it('copies the images only the node holds into the copy, pulls nothing, and reaches the same verdicts', async () => {
      const untag = tagNodeOnlyImages(endpoint, runtime.env);
      try {
        const focus = ['--focus', '^(HOOK-01|IDEM-01|TEAR-11) ', '--trials', '3'];
        const own = [
          '--pause-image',
          NODE_ONLY_IMAGES.pauseImage,
          '--test-image',
          NODE_ONLY_IMAGES.testImage,
        ];
        const run = await runCli(
          ['run', '--isolated', ...own, '--pull', 'never', ...focus, '--report-dir', reportDir],
          runtime.env,
        );
        expect(run.code, run.stdout + run.stderr).to.be.oneOf([0, 1]);
        const report = JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as Report;
        const isolated = report.properties.isolated;
        expect(isolated?.images).to.equal(
          `test image ${NODE_ONLY_IMAGES.testImage} copied from the node's runtime; sandbox image ${NODE_ONLY_IMAGES.pauseImage} copied from the node's runtime`,
        );
        expect(isolated?.changed.every((c) => c.why.length > 0)).to.equal(true);
        expect(isolated?.leftovers).to.deep.equal([]);
        const direct = await runCli(
          ['run', ...focus, '--report-dir', join(reportDir, 'direct')],
          runtime.env,
        );
        const verdicts = (file: string) =>
          (JSON.parse(readFileSync(file, 'utf8')) as Report).results.map((r) => `${r.id} ${r.verdict}`);
        expect(verdicts(join(reportDir, 'results.json')), run.stderr).to.deep.equal(
          verdicts(join(reportDir, 'direct', 'results.json')),
        );
        expect(direct.code).to.equal(run.code);
      } finally {
        untag();
      }
    });

    it('stops before anything starts, with one line naming the image, when neither the node nor the bundle has it', async () => {
      const before = instanceNames();
      const missing = 'registry.example/cc-e2e/nowhere:1';
      const run = await runCli(
        ['run', '--isolated', '--test-image', missing, '--pull', 'never', '--report-dir', reportDir],
        runtime.env,
      );
      expect(run.code).to.equal(2);
      expect(run.stderr.trim().split('\n'), run.stderr).to.deep.equal([
        `cri-conform: --isolated: image ${missing} is not on the node's runtime (ImageStatus on ${endpoint} found no image by that name) and is not one of the bundled images (localhost/cri-conform/busybox:1, localhost/cri-conform/pause:1); import it into the node's runtime, name one it holds, or allow the private instance to pull it (--pull missing)`,
      ]);
      // Other runs on this host may start instances meanwhile: none of this endpoint's appeared.
      const appeared = [...instanceNames()].filter((d) => !before.has(d));
      const ours = appeared.filter((d) =>
        readTextOrEmpty(join(d, 'instance.json')).includes(`"${endpoint}"`),
      );
      expect(ours).to.deep.equal([]);
      const report = JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as Report;
      expect(report.properties.isolated).to.equal(null);
    });

    it('doctor --isolated finds the copy ready, injectors and restart included, and removes it', async () => {
      const run = await runCli(['doctor', '--isolated'], runtime.env);
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      expect(run.stdout).to.match(/^ok {3}private instance of .*\(sha256 [0-9a-f]{12}\)/m);
      expect(run.stdout).to.match(/^ok {3}slow runtime handler "conform-slow"/m);
      expect(run.stdout).to.match(/^ok {3}restart command: .*restart-main\.js/m);
      expect(run.stderr).to.match(/nothing of it is left on the host/);
    });

    it('cleanup --isolated removes the copy a killed run and its killed supervisor left, the endpoint spelled another way', async () => {
      const before = instanceNames();
      let kill: ((signal: NodeJS.Signals) => void) | undefined;
      const running = runCli(
        ['run', '--isolated', '--focus', '^TEAR-04 ', '--report-dir', reportDir],
        runtime.env,
        {
          onSpawn: (k) => {
            kill = k;
          },
        },
      );
      const dir = await newInstanceDir(endpoint, before, 60_000);
      const { network } = JSON.parse(readFileSync(join(dir, 'instance.json'), 'utf8')) as {
        network: { bridge: string };
      };
      await untilCopyHasPod(dir, 60_000);
      // As a worker pod's SIGKILL ends the whole pod: the supervisor goes first, then the run.
      const supervisor = pidsWithArgs(
        (argv) => argv.some((a) => a.endsWith('supervisor-main.js')) && argv.includes(dir),
      );
      expect(supervisor, "the instance's supervisor").to.have.length(1);
      process.kill(supervisor[0] ?? 0, 'SIGKILL');
      kill?.('SIGKILL');
      await running;
      expect(hostTraces(dir, network.bridge), 'a killed run leaves its copy').not.to.deep.equal([]);
      // The same socket through another path: a link to its directory.
      const link = join(reportDir, 'runtime');
      symlinkSync(dirname(endpoint.replace(/^unix:\/\//, '')), link);
      const cleanup = await runCli(
        ['cleanup', '--isolated', '-r', `unix://${link}/containerd.sock`],
        runtime.env,
      );
      expect(cleanup.code, cleanup.stdout + cleanup.stderr).to.equal(0);
      expect(cleanup.stdout).to.include(dir);
      expect(hostTraces(dir, network.bridge)).to.deep.equal([]);
    });
  });
}
