/**
 * The `cri-conform run` command that reproduces one failure elsewhere: the check by --focus, the run's
 * --trials, what the check needs (an NRI socket, a restart command) and the run's flags that change what a
 * check does, without the ones that only say where reports go or which checks run.
 */
import type { CheckResult, RunOutcome } from '../harness/check/result.js';
import { DEFAULT_TRIALS } from '../harness/core/settings.js';
import { serviceName } from './runtime-names.js';

/** What the catalogue says about the check, beyond its result: what it needs to run. */
export interface CheckNeeds {
  needs: readonly string[];
}

const DEFAULT_NRI_SOCKET = '/var/run/nri/nri.sock';
/** Run flags that do not change what a check does, or that the command sets itself; it leaves them out. */
const LEFT_OUT =
  /^--(report-dir|report-prefix|junit|json|html|baseline|color|no-color|focus|skip|suite|level|trials|parallel|fail-fast|flake-attempts|run-timeout|expected-deviations|strict-deviations|config|runtime-endpoint|image-endpoint|nri-socket|restart-cmd|slow-runtime-dir|slow-cni-dir)(=|$)/;

export function reproduce(
  outcome: RunOutcome,
  r: CheckResult,
  catalogue: CheckNeeds | undefined,
  hide: (s: string) => string,
  violatingTrial: string,
): string[] {
  const p = outcome.properties;
  const flags = splitFlags(p.flags);
  // A run without --trials ran the default's trials; the command repeats them, so the race gets as many chances.
  const trials =
    flags.find((f) => f.startsWith('--trials='))?.slice('--trials='.length) ?? String(DEFAULT_TRIALS);
  const level = r.level === 'MUST' ? [] : [`--level ${r.level === 'SHOULD' ? 'should' : 'all'}`];
  const needs = catalogue?.needs ?? [];
  const args = [
    `--focus '^${r.id}\\b'`,
    `--trials ${trials}`,
    ...level,
    `--runtime-endpoint ${hide(p.endpoint)}`,
    ...(needs.includes('nri') ? [`--nri-socket ${hide(p.nriSocket ?? DEFAULT_NRI_SOCKET)}`] : []),
    ...(r.tags.includes('Restart') ? [`--restart-cmd '${restartCommand(p.runtimeName)}'`] : []),
    ...flags.filter((f) => !LEFT_OUT.test(f)).map((f) => shellWord(hide(f))),
  ];
  const out = [
    '## Reproduce',
    '',
    'With [cri-conform](https://www.npmjs.com/package/cri-conform) on the node, as root:',
    '',
  ];
  out.push('```sh', `cri-conform run ${args.join(' \\\n  ')}`, '```');
  const notes: string[] = [];
  if (r.tags.includes('Restart'))
    notes.push(
      `A runtime that fails this check can stay wedged; the check then restarts it with \`--restart-cmd\` (any command that restarts ${p.runtimeName} and returns; this run used a script for its private instance).`,
    );
  if (needs.some((n) => n.startsWith('slow-') || n === 'creation-delay'))
    notes.push(
      'The check delays creation with a test runtime handler or CNI wrapper: add `--slow-runtime-handler`/`--slow-runtime-dir` or `--slow-cni-dir` as in the cri-conform README, "Injectors".',
    );
  if (r.trials && violatingTrial)
    notes.push(
      `The check repeats its scenario: this run saw the violation in ${violatingTrial} (with \`--trials ${trials}\`); where it is a race, a larger \`--trials\` gives it more chances.`,
    );
  return notes.length > 0 ? [...out, '', ...notes.map((n) => `- ${n}`)] : out;
}

function restartCommand(runtimeName: string): string {
  return `systemctl restart ${serviceName(runtimeName)}`;
}

/** The recorded flags ("--a=1 --b=x y --c") one per flag: a value may hold spaces (a restart command). */
export function splitFlags(text: string): string[] {
  return text
    .split(/ (?=--)/)
    .map((f) => f.trim())
    .filter((f) => f !== '');
}

/** `--name=value` with the value quoted for a POSIX shell when it needs it. */
function shellWord(flag: string): string {
  const m = /^(--[\w-]+=)(.*)$/s.exec(flag);
  if (!m || /^[\w./:=,@%+$-]*$/.test(m[2] ?? '')) return flag;
  return `${m[1]}'${(m[2] ?? '').replace(/'/g, "'\\''")}'`;
}
