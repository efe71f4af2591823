/**
 * What names the machine a run was on, taken out of text meant for someone elsewhere (a bug report): the
 * private directory of the runtime's socket, a cgroup filesystem seen through another mount, and the run id
 * after its one mention.
 */
import type { RunOutcome } from '../harness/check/result.js';

/** The cgroup filesystem seen through another mount of it (a chroot, an image build): the prefix is local. */
const MOUNTED_CGROUP_FS = /(?<![\w.-])(?:\/[\w.-]+)+\/sys\/fs\/cgroup\//g;

/**
 * Replaces what names this machine: the private directory of the runtime's socket ($RUNTIME_DIR), the
 * prefix of a cgroup filesystem mounted elsewhere, and every later mention of the run id, which the
 * environment table gives once.
 */
export function anonymizer(outcome: RunOutcome): (s: string) => string {
  const dir = privateRuntimeDir(outcome.properties.endpoint);
  const runId = outcome.properties.runId;
  return (s) => {
    let out = dir ? s.split(dir).join('$RUNTIME_DIR') : s;
    if (runId) out = out.split(runId).join('<run id>');
    return out.replace(MOUNTED_CGROUP_FS, '…/sys/fs/cgroup/');
  };
}

/** The socket's directory unless it is a default one (/run/<name>, /var/run/<name>), which names no machine. */
export function privateRuntimeDir(endpoint: string): string | undefined {
  const path = endpoint.replace(/^unix:\/\//, '');
  if (!path.startsWith('/')) return undefined;
  const dir = path.slice(0, path.lastIndexOf('/'));
  return /^\/(var\/)?run\/[^/]+$/.test(dir) || dir === '' ? undefined : dir;
}
