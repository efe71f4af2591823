/** The CLI entry: parse, run, and map every outcome to an exit code. Only bin/ touches the process. */
import { CommanderError } from 'commander';
import { EnvironmentError } from '../harness/core/errors.js';
import { UsageError } from './errors.js';
import { EXIT_OK, EXIT_USAGE } from './exit.js';
import type { Io } from './io.js';
import { buildProgram } from './program.js';

const HELP_CODES = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

export async function main(argv: readonly string[], io: Io): Promise<number> {
  let exitCode = EXIT_OK;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  if (argv.length <= 2) {
    io.out(program.helpInformation());
    return EXIT_OK;
  }
  try {
    await program.parseAsync([...argv]);
    return exitCode;
  } catch (e) {
    return exitCodeForError(e, io);
  }
}

function exitCodeForError(e: unknown, io: Io): number {
  // Help asked for is a success; help shown for a command that needs more (`help bogus`, `nri` alone) is not.
  if (e instanceof CommanderError) return HELP_CODES.has(e.code) && e.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  if (e instanceof UsageError || e instanceof EnvironmentError) {
    io.err(`cri-conform: ${e.message}\n`);
    return EXIT_USAGE;
  }
  // A runtime that stopped answering between the first Version and the checks (a wedged one lists nothing
  // in time) is the runtime's state, not the tool's fault: one line, as for a runtime that cannot be reached.
  // By its code: importing the class would load grpc for every --help.
  if (e instanceof Error && (e as Error & { code?: unknown }).code === 'ERR_CRI_CALL') {
    io.err(
      `cri-conform: the runtime did not answer as it must: ${e.message.split('\n')[0]}; check its log and that it still serves pods, or give it longer with --call-timeout\n`,
    );
    return EXIT_USAGE;
  }
  const err = e instanceof Error ? e : new Error(String(e));
  io.err(`cri-conform: internal error (please report it): ${err.stack ?? err.message}\n`);
  return EXIT_USAGE;
}
