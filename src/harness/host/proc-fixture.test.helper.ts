/**
 * A fixture /proc tree for tests of what is read from other processes: per pid a `cmdline`, an `environ`,
 * and `root` and `cwd` links, so paths resolve as that process would see them.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FakeProcessOptions {
  /** What the process sees as `/`: the real root unless given. */
  root?: string;
  cwd?: string;
  environ?: Record<string, string>;
}

export function fakeProcess(
  proc: string,
  pid: number,
  argv: readonly string[],
  opts: FakeProcessOptions = {},
): void {
  const p = join(proc, String(pid));
  mkdirSync(p, { recursive: true });
  writeFileSync(join(p, 'cmdline'), `${argv.join('\0')}\0`);
  const environ = Object.entries(opts.environ ?? {}).map(([k, v]) => `${k}=${v}\0`);
  writeFileSync(join(p, 'environ'), environ.join(''));
  symlinkSync(opts.root ?? '/', join(p, 'root'));
  symlinkSync(opts.cwd ?? opts.root ?? '/', join(p, 'cwd'));
}
