/**
 * Whether overlayfs works under a folder, tried as containerd's overlayfs snapshotter tries it when it
 * starts: one overlay mount of empty directories there, unmounted at once. Where it does not (an upper
 * filesystem overlay cannot use), the copy keeps its images in the plain copying snapshotter instead.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { HostView } from './host-view.js';

const exec = promisify(execFile);

export async function overlayUsable(folder: string, host: HostView): Promise<boolean> {
  const probe = join(folder, `.overlay-probe-${process.pid}`);
  const [lower, upper, work, merged] = ['lower', 'upper', 'work', 'merged'].map((d) => join(probe, d));
  const run = async (binary: string, args: string[]) => {
    const cmd = host.command(binary, args);
    await exec(cmd.file, cmd.args, { timeout: 10_000 });
  };
  try {
    for (const d of [lower, upper, work, merged]) mkdirSync(d ?? probe, { recursive: true, mode: 0o700 });
    const options = `lowerdir=${lower},upperdir=${upper},workdir=${work}`;
    try {
      await run('mount', ['-t', 'overlay', 'overlay', '-o', options, merged ?? probe]);
    } catch {
      return false;
    }
    await run('umount', [merged ?? probe]);
    return true;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
