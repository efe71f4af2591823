/**
 * Where the node's things are, for a cri-conform that may run in a pod of its own (the Sonobuoy worker:
 * hostPID, but its own mount namespace). The node's binaries, libraries, shims and config files are in the
 * mount namespace of the node's runtime, so the private instance is started there (nsenter -m -C: the
 * daemon stays in this process's cgroup and network namespace), and the node's files are read through that
 * process's root (NodeView, which the host probes use too). On the node itself both are the plain paths
 * and commands. The instance's own directory is the same path on both sides (the plugin mounts the host's
 * /run/cri-conform and /var/lib/cri-conform/isolated at the same paths), so it needs no translation.
 */
import { existsSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { NodeView } from '../harness/runtime-instance.js';
import { type RecordedProcess, recordProcess, stillRunning } from './processes.js';

/** The anchor as an instance file records it: the process, and the mount namespace it was in (its inode). */
export interface RecordedAnchor extends RecordedProcess {
  mountNamespace: number;
}

/**
 * The node directory the Sonobuoy plugin mounts at the same path in its pod: the instances, their network
 * claims and the checks' pod logs live below it, so both sides name them alike.
 */
export const SHARED_WITH_NODE = '/run/cri-conform';

/** The node's tools (ip, umount) where a Linux distribution keeps them. */
const NODE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Where the worker image and Debian's util-linux keep nsenter. */
const NSENTER_DIRS = ['/usr/bin', '/usr/local/bin', '/bin', '/usr/sbin'];

export class HostView extends NodeView {
  /** The view from this process of the mount namespace `pid` is in. */
  static of(pid: number): HostView {
    return new HostView(sameMountNamespace(pid) ? undefined : pid);
  }

  /**
   * As recorded in an instance file: `anchor` undefined means the node's own namespace. The recorded
   * process is the node's runtime, which may have restarted since, and its pid may now be another
   * process's, in another mount namespace: it stands only with its start time. Else any process still in
   * the recorded mount namespace stands in, else the node's init (a bare pid of an older file has no start
   * time to prove it), and where this process may not read init's namespaces it is on the node itself.
   */
  static recorded(anchor: RecordedAnchor | number | undefined): HostView {
    if (anchor === undefined) return new HostView(undefined);
    if (typeof anchor !== 'number' && stillRunning(anchor)) return new HostView(anchor.pid);
    const standIn = typeof anchor === 'number' ? undefined : inMountNamespace(anchor.mountNamespace);
    if (standIn !== undefined) return HostView.of(standIn);
    // An init whose namespaces this process may not read is no stand-in: then this process is on the node.
    return canRead('/proc/1/ns/mnt') ? HostView.of(1) : new HostView();
  }

  /** This view's anchor as an instance file records it. */
  recordAnchor(): RecordedAnchor | undefined {
    if (this.anchor === undefined) return undefined;
    const process = recordProcess(this.anchor);
    const mountNamespace = mountNamespaceOf(this.anchor);
    return process && mountNamespace !== undefined ? { ...process, mountNamespace } : undefined;
  }

  /** A path of this process's filesystem as a command started on the node can open it (hostPID). */
  ours(localPath: string): string {
    return this.anchor === undefined ? localPath : `/proc/${process.pid}/root${localPath}`;
  }

  /** A node binary with its arguments, as this process runs it: through nsenter from a pod. */
  command(binary: string, args: readonly string[]): { file: string; args: string[] } {
    if (this.anchor === undefined) return { file: binary, args: [...args] };
    // nsenter looks a bare name up on this process's PATH, which is the image's: resolve it on the node's.
    const file = this.onPath(binary, NODE_PATH) ?? binary;
    // The node's cgroup namespace too (-C): on cgroup v2 a process may only move others into cgroups below
    // its namespace's root, and runc puts each container into a cgroup of its own outside the pod's. The
    // cgroup the process is in stays the pod's.
    return { file: nsenter(), args: ['-t', String(this.anchor), '-m', '-C', '--', file, ...args] };
  }

  /** As command(), in the node's network namespace too (from a pod, whose own is another). */
  commandInNodeNetwork(binary: string, args: readonly string[]): { file: string; args: string[] } {
    const cmd = this.command(binary, args);
    if (this.anchor === undefined) return cmd;
    return { file: cmd.file, args: ['-n', ...cmd.args] };
  }

  /** A command name resolved on a node PATH, as the node's daemon would run it (a node path). */
  onPath(command: string, path: string): string | undefined {
    if (isAbsolute(command)) return existsSync(this.path(command)) ? command : undefined;
    return path
      .split(':')
      .filter(Boolean)
      .map((d) => join(d, command))
      .find((f) => existsSync(this.path(f)));
  }
}

function mountNamespaceOf(pid: number): number | undefined {
  try {
    return statSync(`/proc/${pid}/ns/mnt`).ino;
  } catch {
    return undefined;
  }
}

/** A running process in the mount namespace with this inode, or undefined when none is left. */
function inMountNamespace(inode: number): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (mountNamespaceOf(pid) === inode && recordProcess(pid) !== undefined) return pid;
  }
  return undefined;
}

function sameMountNamespace(pid: number): boolean {
  try {
    return statSync('/proc/self/ns/mnt').ino === statSync(`/proc/${pid}/ns/mnt`).ino;
  } catch {
    // Not ours to look at: only a process of another namespace hides it from root.
    return false;
  }
}

function canRead(link: string): boolean {
  try {
    readlinkSync(link);
    return true;
  } catch {
    return false;
  }
}

function nsenter(): string {
  const found = NSENTER_DIRS.map((d) => join(d, 'nsenter')).find((f) => existsSync(f));
  if (found === undefined)
    throw new Error(`nsenter (util-linux) is not in ${NSENTER_DIRS.join(', ')}: the worker image needs it`);
  return found;
}
