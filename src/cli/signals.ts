/**
 * Which signals stop a command cleanly, and what to say when a second one ends it at once. bin/ installs
 * the handlers (only it touches the process); this says what they print. SIGHUP is a terminal or an ssh
 * session going away: the run then stops as it does on Ctrl-C, since the user can no longer.
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * What the first signal prints: what the command does now, so Ctrl-C never seems ignored. An operator who
 * presses it wants the command to stop soon, but never with an object half removed (a pod stopped but not
 * removed, a process killed but its id not kept), since that is what the next cleanup would have to find
 * again. So cleanup and doctor stop at their next safe point, between steps, and say what is left; a second
 * signal is there for whoever cannot wait that long.
 */
export function stopNotice(signal: string, argv: readonly string[]): string {
  const now = 'press again to exit at once';
  switch (argv[2]) {
    case 'cleanup':
      return `${signal}: cleanup stops after the removal under way (no object is left half removed) and names what is left; ${now}`;
    case 'doctor':
      return `${signal}: doctor stops once its probes have removed their pods, with no verdict (exit 2); ${now}`;
    default:
      return `${signal}: stopping cleanly (releasing hooks, cleaning up); ${now}`;
  }
}

/**
 * Says on stderr that a command stops at a safe point because it was interrupted, and what finishes its
 * work; returns whether it was. Exit 2 then: no trustworthy verdict, and never 0 with work undone.
 */
export function stoppedBySignal(signal: AbortSignal, err: (text: string) => void, finish: string): boolean {
  if (!signal.aborted) return false;
  const why = signal.reason instanceof Error ? signal.reason.message : 'interrupted';
  err(`cri-conform: ${why}: stopped before the next step; ${finish}\n`);
  return true;
}

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
