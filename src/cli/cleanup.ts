/** `cri-conform cleanup`: removes what crashed runs left behind, found by the run label, and nothing else. */
import type { Command } from 'commander';
import { configFromFlags } from './command-config.js';
import type { Io } from './io.js';
import { addEndpointOptions } from './options.js';
import type { RunFlags } from './resolve-config.js';

export function addCleanup(program: Command, io: Io, setExit: (code: number) => void): void {
  const cmd = program
    .command('cleanup')
    .description(
      'stop and remove every pod and container labelled cri-conform.io/run (of one run with --run-id)',
    );
  addEndpointOptions(cmd)
    .option('--run-id <id>', 'only the objects of this run (the id is in every report)')
    .addHelpText(
      'after',
      '\nOnly objects carrying the label cri-conform.io/run are touched.\n\nExamples:\n  $ cri-conform cleanup\n  $ cri-conform cleanup --run-id 202611221530-3fa2c1 -r unix:///run/containerd/containerd.sock',
    )
    .action(async (flags: RunFlags & { config?: string; runId?: string }) => {
      const { runId, ...rest } = flags;
      const config = configFromFlags(rest, io);
      const [{ removeLabelledUntilGone }, { connectRuntime }] = await Promise.all([
        import('../harness/cleanup.js'),
        import('../harness/environment.js'),
      ]);
      const client = await connectRuntime(config);
      try {
        const report = await removeLabelledUntilGone(client, runId ? { runId } : {}, 120_000);
        io.out(`removed ${report.containers.length} containers and ${report.pods.length} pods\n`);
        for (const id of report.pods) io.out(`  pod ${id}\n`);
        for (const p of report.problems) io.err(`cri-conform: could not remove ${p}\n`);
        const { describeLeftovers, runtimeLeftovers } = await import('../harness/runtime-leftovers.js');
        const leftovers = await runtimeLeftovers(config.runtimeEndpoint, runId);
        if (leftovers.length > 0)
          io.err(`cri-conform: ${describeLeftovers(config.runtimeEndpoint, leftovers)}\n`);
        setExit(report.problems.length === 0 && leftovers.length === 0 ? 0 : 1);
      } finally {
        client.close();
      }
    });
}
