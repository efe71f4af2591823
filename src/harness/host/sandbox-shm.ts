/**
 * The /dev/shm mount containerd's CRI plugin makes for a sandbox lives outside containerd's own API; when the
 * CRI has lost the sandbox, only the host can unmount it. Only mounts at <state>/sandboxes/<id>/shm of the
 * given (labelled) sandbox ids are touched.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { errorMessage } from '../core/errors.js';
import { mountsMentioning } from './proc.js';

const run = promisify(execFile);

export interface ShmUnmount {
  unmounted: string[];
  /** Mount points that stay mounted, each with why. */
  problems: string[];
}

/** The mounts that mention one of `sandboxIds`: sandbox shm mounts to unmount, and the rest to leave. */
export function sandboxShmMounts(
  mountinfo: string,
  sandboxIds: readonly string[],
): { shm: string[]; others: string[] } {
  const mounts = mountsMentioning(mountinfo, sandboxIds);
  const isShm = (m: string) => sandboxIds.some((id) => m.endsWith(`/sandboxes/${id}/shm`));
  return { shm: mounts.filter(isShm), others: mounts.filter((m) => !isShm(m)) };
}

export async function unmountSandboxShm(sandboxIds: readonly string[]): Promise<ShmUnmount> {
  const mountinfo = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  const { shm, others } = sandboxShmMounts(mountinfo, sandboxIds);
  const result = await unmountAll(shm);
  result.problems.unshift(...others.map((m) => `${m} (not a sandbox's shm mount; left alone)`));
  return result;
}

/** Unmounts each mount point; one that stays is a problem, with umount's reason. */
export async function unmountAll(mountPoints: readonly string[]): Promise<ShmUnmount> {
  const result: ShmUnmount = { unmounted: [], problems: [] };
  for (const mountPoint of mountPoints) {
    try {
      await run('umount', [mountPoint]);
      result.unmounted.push(mountPoint);
    } catch (e) {
      const why = (e as { stderr?: string }).stderr?.trim() || errorMessage(e);
      result.problems.push(`${mountPoint} (${why})`);
    }
  }
  return result;
}
