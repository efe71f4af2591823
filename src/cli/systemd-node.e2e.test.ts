/**
 * End to end on a node with systemd as PID 1 and containerd on the systemd cgroup driver
 * (scripts/systemd-node-up.sh; CRI_CONFORM_E2E_SYSTEMD_NODE names its env file), with cri-conform run
 * inside it as an operator runs it: doctor is ready and names the driver and the slice; an injector check,
 * a [Node] leak check, a held-hook check and a trial check PASS, as on the cgroupfs containerd 1.7; so do
 * checks on a private copy (--isolated, on the systemd driver too); and afterwards the node holds no slice,
 * scope, pod, IP, mount or netns of the runs (each run stops its empty cri_conform.slice as it ends).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { expect } from 'chai';
import { describeSkipped } from '../skip-reason.test.helper.js';
import { labelledLeft } from './e2e-env.test.helper.js';
import {
  cliInNode,
  inNode,
  nodePath,
  type SystemdNode,
  systemdNodeUnderTest,
} from './systemd-node.test.helper.js';

interface Report {
  properties: {
    cgroup?: { driver: string; parent: string; driverSource: string };
    isolated: { leftovers: string[] } | null;
  };
  results: Array<{ id: string; verdict: string; message: string | null }>;
}

/** One check of each kind the driver could break: injector, [Node] leak, held hook, trials. */
const FOCUSED = '^(NAME-01|TEAR-11|HOOK-03|IDEM-01) ';
const ON_THE_COPY = '^(HOOK-01|TEAR-11) ';

/** A folder's entries; none when it does not exist (nothing ever made it). */
function listed(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

const found = systemdNodeUnderTest();
if ('skip' in found) describeSkipped('cri-conform on a systemd node', found.skip);
else
  describe('cri-conform on a systemd node (containerd on the systemd cgroup driver)', function () {
    this.timeout(5 * 60_000);
    const node: SystemdNode = found;
    const reportDirs: string[] = [];
    after(() => {
      for (const dir of reportDirs) rmSync(nodePath(node, dir), { recursive: true, force: true });
    });

    /** Runs the CLI in the node with its reports in a folder of the node's own; returns them too. */
    async function runInNode(args: string[]) {
      const dir = `/var/tmp/cc-e2e-${randomUUID().slice(0, 8)}`;
      reportDirs.push(dir);
      const run = await cliInNode(node, [...args, '--report-dir', dir]);
      const file = nodePath(node, `${dir}/results.json`);
      const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Report) : undefined;
      return { run, report };
    }

    it('doctor is ready and names the systemd driver and the slice the pods go to', async () => {
      const run = await cliInNode(node, ['doctor', '--level', 'all']);
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      expect(run.stdout).to.match(/^ok {3}cgroup driver systemd \(.+\), parent cri_conform\.slice$/m);
      expect(run.stdout).to.match(/^ready: /m);
    });

    it('passes an injector, a [Node] leak, a held-hook and a trial check, as on cgroupfs', async () => {
      const { run, report } = await runInNode(['run', '--level', 'all', '--focus', FOCUSED, '--trials', '2']);
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      expect(report?.properties.cgroup).to.deep.include({ driver: 'systemd', parent: 'cri_conform.slice' });
      expect(report?.results.map((r) => `${r.id} ${r.verdict}`).sort()).to.deep.equal([
        'HOOK-03 passed',
        'IDEM-01 passed',
        'NAME-01 passed',
        'TEAR-11 passed',
      ]);
    });

    it('runs checks on a private copy of the node containerd, on the systemd driver too', async () => {
      const { run, report } = await runInNode(['run', '--isolated', '--focus', ON_THE_COPY]);
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      expect(report?.properties.cgroup).to.deep.include({ driver: 'systemd', parent: 'cri_conform.slice' });
      expect(report?.properties.isolated?.leftovers).to.deep.equal([]);
      expect(report?.results.map((r) => `${r.id} ${r.verdict}`).sort()).to.deep.equal([
        'HOOK-01 passed',
        'TEAR-11 passed',
      ]);
    });

    it('leaves no slice, scope, pod, IP, mount or netns in the node', async () => {
      const units = await inNode(node, [
        'systemctl',
        'list-units',
        '--all',
        '--plain',
        '--no-legend',
        'cri-containerd-*',
        'cri_conform.slice',
      ]);
      // A stopped unit may still be listed, loaded and inactive, until systemd collects it.
      const held = units.stdout.split('\n').filter((l) => l.trim() !== '' && !/\sinactive\s+dead\b/.test(l));
      expect(held, 'cri-containerd scopes and the slice').to.deep.equal([]);
      const scopes = readdirSync(nodePath(node, '/sys/fs/cgroup')).flatMap((h) => {
        const slice = nodePath(node, `/sys/fs/cgroup/${h}/cri_conform.slice`);
        return existsSync(slice)
          ? [`${h}/cri_conform.slice`, ...listed(slice).filter((n) => n.endsWith('.scope'))]
          : [];
      });
      expect(scopes, 'cri_conform.slice cgroups').to.deep.equal([]);
      const endpoint = `unix://${nodePath(node, '/run/containerd/containerd.sock')}`;
      expect(await labelledLeft(endpoint)).to.deep.equal({ pods: [], containers: [] });
      const ips = listed(nodePath(node, '/var/lib/cni/networks/cri-conform')).filter(
        (f) => f !== 'lock' && !f.startsWith('last_reserved_ip'),
      );
      expect(ips, 'IPs host-local still hands out').to.deep.equal([]);
      const mounts = readFileSync(nodePath(node, '/proc/1/mountinfo'), 'utf8')
        .split('\n')
        .filter((l) =>
          /io\.containerd\.runtime\.v2\.task|\/run\/netns\/|\/run\/cri-conform\/isolated\//.test(l),
        );
      expect(mounts, 'task rootfs, netns and private instance mounts').to.deep.equal([]);
      expect(listed(nodePath(node, '/run/netns')), 'network namespaces').to.deep.equal([]);
    });
  });
