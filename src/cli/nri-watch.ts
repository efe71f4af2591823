/** `cri-conform nri watch`: an observing plugin that prints every NRI event as it arrives. */
import type { Command } from 'commander';
import { UsageError } from './errors.js';
import type { Io } from './io.js';
import { addNriSocketOption } from './options.js';
import { DEFAULT_NRI_SOCKET } from './resolve-config.js';

export function addNri(program: Command, io: Io, setExit: (code: number) => void): void {
  const nri = program.command('nri').description('NRI tools');
  const watch = nri
    .command('watch')
    .description('register as an observing NRI plugin and print each event until interrupted')
    .option('--name <name>', 'plugin name', 'cri-conform-watch')
    .option('--index <nn>', 'plugin index, two digits; high runs last', '99')
    .option('--json', 'one JSON object per line');
  addNriSocketOption(watch).addHelpText(
    'after',
    '\nIt never adjusts a container and answers every event at once.\n\nExamples:\n  $ cri-conform nri watch --nri-socket /var/run/nri/nri.sock\n  $ cri-conform nri watch --json | jq .event',
  );
  watch.action(async (flags: { name: string; index: string; json?: boolean; nriSocket?: string }) => {
    const { PLUGIN_INDEX_PATTERN, PLUGIN_NAME_PATTERN, watchNriEvents } = await import(
      '../harness/injectors/nri-watch.js'
    );
    // Checked here, as flags: the NRI layer would refuse them too, but in words about plugin options.
    if (!PLUGIN_INDEX_PATTERN.test(flags.index))
      throw new UsageError(`--index "${flags.index}" must be exactly two digits, e.g. 99`);
    if (!PLUGIN_NAME_PATTERN.test(flags.name))
      throw new UsageError(
        `--name "${flags.name}" must match ${PLUGIN_NAME_PATTERN.source} (NRI refuses other plugin names), e.g. cri-conform-watch`,
      );
    await watchNriEvents({
      socketPath: flags.nriSocket ?? io.env.CRI_CONFORM_NRI_SOCKET ?? DEFAULT_NRI_SOCKET,
      name: flags.name,
      index: flags.index,
      json: flags.json === true,
      write: (line) => io.out(`${line}\n`),
      signal: io.signal,
    });
    setExit(0);
  });
}
