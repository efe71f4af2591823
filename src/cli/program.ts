/** The commander program: one line per command, each command in its own file. */
import { Command } from 'commander';
import { addCleanup } from './cleanup.js';
import { addDiff } from './diff.js';
import { addDoctor } from './doctor.js';
import type { Io } from './io.js';
import { addList } from './list.js';
import { addNri } from './nri-watch.js';
import { addReport } from './report.js';
import { addRun } from './run.js';
import { TOOL_VERSION } from './version.js';

const INTRO = `
cri-conform checks the contracts that keep pods from leaking or sticking in Terminating:
timeout-retry idempotency, "name is reserved", NRI pod-sandbox hook ordering, and teardown
that no NRI plugin can block. It dials the runtime's CRI socket (and NRI socket), runs the
checks, and writes JUnit and JSON reports.

Start with:
  $ cri-conform doctor       # is this node ready? what to fix
  $ cri-conform list         # the checks, their IDs and levels
  $ cri-conform run          # run the MUST checks, reports in ./reports`;

export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command('cri-conform')
    .description('conformance checks for Kubernetes container runtimes (CRI + NRI)')
    .version(TOOL_VERSION, '-v, --version')
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (s) => io.out(s),
      writeErr: (s) => io.err(s),
      // One line, whatever commander adds (suggestions come on a line of their own).
      outputError: (s) =>
        io.err(
          `cri-conform: ${s
            .replace(/^error: /, '')
            .trim()
            .replace(/\s*\n\s*/g, ' ')} (see --help)\n`,
        ),
    })
    .addHelpText('after', INTRO);
  for (const add of [addRun, addList, addDoctor, addCleanup, addNri, addReport, addDiff])
    add(program, io, setExit);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}
