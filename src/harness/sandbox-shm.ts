/**
 * The /dev/shm mount containerd's CRI plugin makes for a sandbox lives outside containerd's own API; when the
 * CRI has lost the sandbox, only the host can unmount it. Only mounts at <state>/sandboxes/<id>/shm of the
 * given (labelled) sandbox ids are touched.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { mountsMentioning } from './proc.js';

export interface ShmUnmount {
  unmounted: string[];
  /** Mount points that stay mounted, each with why. */
  problems: string[];
}

export async function unmountSandboxShm(sandboxIds: readonly string[]): Promise<ShmUnmount> {
  const mountinfo = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  const result: ShmUnmount = { unmounted: [], problems: [] };
  for (const mountPoint of mountsMentioning(mountinfo, sandboxIds)) {
    const isSandboxShm = sandboxIds.some((id) => mountPoint.endsWith(`/sandboxes/${id}/shm`));
    if (!isSandboxShm) {
      result.problems.push(`${mountPoint} (not a sandbox's shm mount; left alone)`);
      continue;
    }
    try {
      await promisify(execFile)('umount', [mountPoint]);
      result.unmounted.push(mountPoint);
    } catch (e) {
      const why = (e as { stderr?: string }).stderr?.trim() || (e instanceof Error ? e.message : String(e));
      result.problems.push(`${mountPoint} (${why})`);
    }
  }
  return result;
}
