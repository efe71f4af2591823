/**
 * The private instances (run --isolated) of one endpoint that killed runs left: their daemon, network and
 * directory stay until `cleanup --isolated` removes them, which only that flag does, since removing one
 * stops a containerd or CRI-O. Plain `cleanup` and `doctor` name them, so that nothing of the tool's stays
 * on the node unmentioned. Here, in the CLI, because src/harness must not import src/instance.
 */
import type { Finding } from '../harness/readiness/readiness-types.js';
import { orphanedInstances } from '../instance/instance-file.js';
import type { Io } from './io.js';

/** The directories of the instances of `endpoint` whose runs are gone. */
export function deadInstanceDirs(endpoint: string): string[] {
  return orphanedInstances(endpoint).map((r) => r.dir);
}

/** The command that removes them. */
export function removeDeadInstancesCommand(endpoint: string): string {
  return `cri-conform cleanup --isolated -r ${endpoint}`;
}

/** What `cleanup` without --isolated says of them on stderr, one line each; empty when there are none. */
export function deadInstancesLines(endpoint: string, dirs: readonly string[]): string[] {
  return dirs.map(
    (dir) =>
      `cri-conform: left the private instance ${dir} of a killed --isolated run (its daemon, bridge, netns and files); remove it with: ${removeDeadInstancesCommand(endpoint)}\n`,
  );
}

/** doctor's warning, when killed runs left instances of `endpoint`. */
export function deadInstancesFinding(endpoint: string, dirs: readonly string[]): Finding | undefined {
  if (dirs.length === 0) return undefined;
  const n = dirs.length === 1 ? 'a private instance' : `${dirs.length} private instances`;
  return {
    severity: 'warn',
    what: `killed --isolated runs left ${n} of this runtime, still holding the node's resources: ${dirs.join(' ')}`,
    fix: `run: ${removeDeadInstancesCommand(endpoint)}`,
  };
}

/** Removes what killed --isolated runs left of their private instances; returns how many kept something. */
export async function removePrivateInstances(endpoint: string, io: Io): Promise<number> {
  const { nodeViewOf, sweepDeadInstances } = await import('../instance/sweep.js');
  const { instances, cniFiles } = await sweepDeadInstances(endpoint, nodeViewOf(endpoint));
  io.out(`removed ${instances.length} private instances left by killed --isolated runs\n`);
  for (const r of instances) {
    io.out(`  ${r.dir}\n`);
    for (const l of r.leftovers)
      io.err(
        `cri-conform: still there after removing ${r.dir}: ${l} (recorded there for the next cleanup)\n`,
      );
  }
  if (cniFiles.length > 0)
    io.out(`removed ${cniFiles.length} CNI cache files of pods whose network namespace is gone\n`);
  for (const f of cniFiles) io.out(`  ${f}\n`);
  return instances.filter((r) => r.leftovers.length > 0).length;
}
