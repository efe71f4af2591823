/**
 * Which signals stop a command cleanly, and what to say when a second one ends it at once. bin/ installs
 * the handlers (only it touches the process); this says what they print. SIGHUP is a terminal or an ssh
 * session going away: the run then stops as it does on Ctrl-C, since the user can no longer.
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The command that removes what a run ended by a second signal left, for the flags it ran with. */
export function leftoversHint(argv: readonly string[]): string {
  const endpoint = flagValue(argv, ['-r', '--runtime-endpoint']);
  const target = endpoint === undefined ? '' : ` -r ${endpoint}`;
  if (argv.includes('--isolated')) {
    return `its private instance's supervisor removes the instance; \`cri-conform cleanup --isolated${target}\` removes whatever is left of it`;
  }
  return `run \`cri-conform cleanup${target}\` to remove what it left`;
}

function flagValue(argv: readonly string[], names: readonly string[]): string | undefined {
  let value: string | undefined;
  argv.forEach((arg, i) => {
    for (const name of names) {
      if (arg === name) value = argv[i + 1];
      else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
    }
  });
  return value;
}
