/**
 * The systemd node under test (scripts/systemd-node-up.sh): where its env file is, why there is none, and
 * how to run a command inside it as the node's own service (scripts/systemd-node-exec.sh), the way an
 * operator runs cri-conform on a node.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, type CliRun, ROOT, readEnvFile, runCollecting } from './e2e-env.test.helper.js';

export interface SystemdNode {
  /** The env file's values: endpoints and injector settings as the node sees them. */
  env: Record<string, string>;
  dir: string;
  /** The node's PID 1 as this process sees it: its files are under /proc/<pid>/root. */
  pid: string;
}

/** The node named by CRI_CONFORM_E2E_SYSTEMD_NODE, or why the tests skip (each a sentence with the fix). */
export function systemdNodeUnderTest(): SystemdNode | { skip: string } {
  const file = process.env.CRI_CONFORM_E2E_SYSTEMD_NODE ?? '';
  const unavailable = process.env.CRI_CONFORM_E2E_SYSTEMD_NODE_UNAVAILABLE ?? '';
  if (file === '') {
    if (unavailable !== '') return { skip: `this machine cannot host the systemd node: ${unavailable}` };
    if (process.env.CI === 'true')
      throw new Error(
        'CI=true but CRI_CONFORM_E2E_SYSTEMD_NODE is empty: .ci/run must bring the systemd node up (or say why it cannot)',
      );
    return {
      skip: 'no systemd node: bring one up with `sudo scripts/systemd-node-up.sh` and pass the env file it writes: CRI_CONFORM_E2E_SYSTEMD_NODE=/tmp/cri-conform/systemd-node-1.7/env npm test',
    };
  }
  if (process.getuid?.() !== 0)
    return { skip: 'the systemd node is entered with nsenter: run the tests as root' };
  const env = readEnvFile(file);
  const project = env.CRI_CONFORM_SYSTEMD_NODE_PROJECT ?? '';
  if (project !== ROOT)
    return {
      skip: `the systemd node binds the checkout ${project} in, not this one (${ROOT}): bring it up from this checkout`,
    };
  const pid = env.CRI_CONFORM_SYSTEMD_NODE_PID ?? '';
  if (!existsSync(`/proc/${pid}/root`))
    throw new Error(`the systemd node of ${file} does not run (its PID 1 ${pid} is gone): bring it up again`);
  return { env, dir: env.CRI_CONFORM_SYSTEMD_NODE_DIR ?? '', pid };
}

/** Runs a command in the node as a service of its systemd, with the node's environment and no other. */
export function inNode(node: SystemdNode, command: string[]): Promise<CliRun> {
  const exec = join(ROOT, 'scripts/systemd-node-exec.sh');
  const path = process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin';
  return runCollecting('bash', [exec, '--dir', node.dir, '--', ...command], {
    PATH: path,
    ...node.env,
    NO_COLOR: '1',
  });
}

/** The built CLI in the node, with the node's `node` (the host's binary, bound in). */
export function cliInNode(node: SystemdNode, args: string[]): Promise<CliRun> {
  return inNode(node, ['node', CLI, ...args]);
}

/** A node path as this process can read it. */
export function nodePath(node: SystemdNode, path: string): string {
  return `/proc/${node.pid}/root${path}`;
}
